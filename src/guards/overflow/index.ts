export { estimateTokens, RequestMeter, MEDIA_TOKENS, MESSAGE_OVERHEAD } from "./estimate.js";
export { answerReserve, calibration, profileWindow, DEFAULT_ANSWER_RESERVE } from "./window.js";
export { isContextOverflowError, overflowNumbers, type OverflowNumbers } from "./providerErrors.js";
export { planShrink, groupsOf, type PlanEntry, type ShrinkPlan, type ShrinkSizes } from "./plan.js";
export { CONTEXT_RECORD_KEY, readContextRecord, type ContextRecord, type RemovedPart, type ShrinkAction } from "./record.js";
