// Loop detectors other projects ship, re-implemented from their published behaviour, to compare
// against harness-kit's loop guards on the same recorded threads (bench/eval-real.ts).
export { ableProgressGuard } from "./ableProgressGuard.js";
export { callEvents, type Baseline, type BaselineFlag, type CallEvent } from "./events.js";
export { geminiCli } from "./geminiCli.js";
export { openHands } from "./openHands.js";
export { rooCode } from "./rooCode.js";

import { ableProgressGuard } from "./ableProgressGuard.js";
import { geminiCli } from "./geminiCli.js";
import { openHands } from "./openHands.js";
import { rooCode } from "./rooCode.js";

export const BASELINES = [geminiCli, rooCode, openHands, ableProgressGuard] as const;
