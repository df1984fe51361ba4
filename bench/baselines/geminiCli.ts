import { flag, type Baseline } from "./events.js";

/**
 * gemini-cli's tool-call loop check (LoopDetectionService, TOOL_CALL_LOOP_THRESHOLD = 5): the
 * same tool with the same arguments five times in a row halts the request. A new user prompt
 * starts the count over; text between calls does not.
 */
export const geminiCli: Baseline = {
  name: "gemini-cli",
  intervention: "halts the request",
  rule: "5 identical consecutive calls",
  detect(calls) {
    const flags = [];
    let last: string | undefined;
    let streak = 0;
    let userTurn = -1;
    for (const call of calls) {
      if (call.userTurn !== userTurn) {
        userTurn = call.userTurn;
        last = undefined;
      }
      streak = call.key === last ? streak + 1 : 1;
      last = call.key;
      if (streak >= 5) flags.push(flag(call, `${streak} identical calls in a row`));
    }
    return flags;
  },
};
