// The context-overflow guard's public parts.
export { ContextOverflowGuardMiddleware, type ContextOverflowGuardOptions } from "./ContextOverflowGuardMiddleware.js";
export { isContextOverflowError } from "./providerErrors.js";
export { readContextRecord, type ContextRecord } from "./record.js";
