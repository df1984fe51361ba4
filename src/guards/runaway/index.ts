// The runaway guard's public parts.
export { RunawayGuardMiddleware, type RunawayGuardOptions } from "./RunawayGuardMiddleware.js";
export type { RunawayReport } from "./report.js";
