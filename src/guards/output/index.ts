// The output validator's public parts.
export { OutputValidatorMiddleware, type OutputValidatorOptions } from "./OutputValidatorMiddleware.js";
export type { ToolOutputSpec } from "./spec.js";
export { decodeEnvelopePayload } from "./envelope.js";
export {
  InMemoryLastKnownGoodCache,
  type LastKnownGoodCache,
  type LastKnownGoodKey,
  type LastKnownGoodEntry,
  type InMemoryLastKnownGoodCacheOptions,
} from "./cache.js";
