import { flag, type Baseline } from "./events.js";

/**
 * Roo Code's ToolRepetitionDetector (consecutiveIdenticalToolCallLimit = 3): a call identical to
 * the previous one raises a counter that starts at 0; at 3 repeats (the 4th identical call in a
 * row) execution is refused and the user is asked for guidance, and the counter starts over.
 */
export const rooCode: Baseline = {
  name: "Roo Code",
  intervention: "refuses the call and asks the user",
  rule: "4th consecutive identical call",
  detect(calls) {
    const flags = [];
    let previous: string | undefined;
    let repeats = 0;
    for (const call of calls) {
      if (call.key === previous) repeats++;
      else {
        repeats = 0;
        previous = call.key;
      }
      if (repeats >= 3) {
        flags.push(flag(call, "4th identical call in a row"));
        repeats = 0;
        previous = undefined;
      }
    }
    return flags;
  },
};
