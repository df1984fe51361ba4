// The output validator's public parts (decodeEnvelopePayload: "harness-kit/observe").
export { OutputValidatorMiddleware, type OutputValidatorOptions } from "./OutputValidatorMiddleware.js";
export type { ToolOutputSpec } from "./spec.js";
export {
  InMemoryLastKnownGoodCache,
  type LastKnownGoodCache,
  type LastKnownGoodKey,
  type LastKnownGoodEntry,
  type InMemoryLastKnownGoodCacheOptions,
} from "./cache.js";
