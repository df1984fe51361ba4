import { flag, type Baseline, type CallEvent } from "./events.js";

/**
 * OpenHands' StuckDetector, its two action/observation rules, over the history since the last
 * user message: the last 4 actions are equal and so are their 4 observations, or the last 3
 * actions are equal and all 3 observations are errors. The agent then stops in an error state,
 * so the next call never runs: that is the call flagged here.
 */
export const openHands: Baseline = {
  name: "OpenHands",
  intervention: "stops the agent (error state)",
  rule: "last 4 action/observation pairs equal, or last 3 identical actions all erroring",
  detect(calls) {
    const flags = [];
    for (let i = 0; i < calls.length; i++) {
      const since = calls.slice(0, i).filter((c) => c.userTurn === calls[i]!.userTurn && c.result !== undefined);
      const stuck =
        repeats(since, 4, (c) => `${c.key}\u0000${c.result}`) ||
        (repeats(since, 3, (c) => c.key) && since.slice(-3).every((c) => c.isError));
      if (stuck) flags.push(flag(calls[i]!, "repeating action/observation cycle"));
    }
    return flags;
  },
};

function repeats(history: readonly CallEvent[], n: number, identity: (c: CallEvent) => string): boolean {
  if (history.length < n) return false;
  const last = history.slice(-n).map(identity);
  return last.every((value) => value === last[0]);
}
