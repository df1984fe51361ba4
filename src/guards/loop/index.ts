// The loop guard's public parts.
export { LoopGuardMiddleware, type LoopGuardOptions } from "./LoopGuardMiddleware.js";
