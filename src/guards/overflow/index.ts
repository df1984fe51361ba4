// The context-overflow guard's public parts (isContextOverflowError and readContextRecord:
// "harness-kit/observe").
export { ContextOverflowGuardMiddleware, type ContextOverflowGuardOptions } from "./ContextOverflowGuardMiddleware.js";
