// Public surface of harness-kit ("harness-kit"): what the README documents, re-exported from each
// feature's index.ts: each guard's class, options type and the helpers its options take. What a
// user rarely needs (the observation store, novelty functions, render helpers) is in
// "harness-kit/observe". Everything else is internal. Layout and import direction: docs/architecture.md.

// signals and errors
export {
  SIGNAL_EVENT,
  SIGNAL_CODES,
  isSignalCode,
  type GuardAction,
  type Signal,
  type SignalCode,
  type SignalHandler,
} from "./core/signals.js";
export { HarnessKitError, GuardStopError, InvalidOptionsError } from "./core/errors.js";

// the guards
export * from "./guards/loop/index.js";
export * from "./guards/progress/index.js";
export * from "./guards/runaway/index.js";
export * from "./guards/budget/index.js";
export * from "./guards/binary/index.js";
export * from "./guards/output/index.js";
export * from "./guards/repair/index.js";
export * from "./guards/overflow/index.js";
export {
  PolicyGuardMiddleware,
  policy,
  parsePolicy,
  policyJsonSchema,
  type PolicyGuardOptions,
  type PolicyReviewRequest,
  type PolicyReviewDecision,
  type PolicyRules,
  type PolicyRule,
  type Predicates,
} from "./guards/policy/index.js";

// where offloaded results live (FileSystemOffloadStore: "harness-kit/node")
export type { OffloadStore, OffloadContext, OffloadReceipt, LineReader } from "./offload/OffloadStore.js";
export { MemoryOffloadStore } from "./offload/MemoryOffloadStore.js";
export { LangGraphOffloadStore, type LangGraphOffloadStoreOptions } from "./offload/LangGraphOffloadStore.js";
export { AgentFilesOffloadStore, type AgentFilesOffloadStoreOptions } from "./offload/AgentFilesOffloadStore.js";
export { OffloadStoreError } from "./offload/errors.js";

// tool results JSON cannot hold
export { withSafeResults } from "./tools/withSafeResults.js";

// the recommended stack
export { recommendedGuards, type RecommendedGuards, type RecommendedGuardsOptions } from "./stack/recommendedGuards.js";
export { ComposedGuards, type ComposedGuardsOptions } from "./stack/composeGuards.js";

// replay (the library behind `harness-kit inspect` / `eval`)
export {
  replayThread,
  type ReplayGuard,
  type StackedGuard,
  type ReplayedDecision,
  type ReplayResult,
} from "./replay/replayThread.js";
