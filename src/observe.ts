// "harness-kit/observe": what the guards see and say, for the rare user who reads it directly
// (tests of a custom novelty function, tooling over saved threads, extending the progress guard's
// `volatilePatterns` or `deltaOverrides`). "harness-kit" has every guard's class, options type and
// errors. Re-exports only.

// the observation store every guard reads
export {
  buildObservations,
  ObservationStore,
  type ObservationOptions,
  type ToolCallObservation,
} from "./observe/store.js";
export { makeSetMembershipDelta, type DeltaFunction, type CallResultView } from "./observe/novelty.js";
export { DEFAULT_VOLATILE_PATTERNS } from "./observe/volatile.js";
export { loadHasher, type Hasher } from "./observe/hash.js";

// how values and results are rendered
export { renderValue } from "./core/renderValue.js";
export { binaryReadDirective } from "./guards/binary/texts.js";
export { decodeEnvelopePayload } from "./guards/output/envelope.js";

// what the context-overflow guard reads and records
export { isContextOverflowError } from "./guards/overflow/providerErrors.js";
export { readContextRecord, type ContextRecord } from "./guards/overflow/record.js";
