// Public surface of harness-kit: re-exports only.

// core
export { SIGNAL_EVENT, SIGNAL_CODES, isSignalCode, type GuardAction, type Signal, type SignalCode, type SignalHandler } from "./core/signals.js";
export { HarnessKitError, GuardStopError, InvalidOptionsError } from "./core/errors.js";
export type { ExitBehavior } from "./core/decision.js";

// observation store
export { buildObservations, ObservationStore, type ObservationOptions, type ToolCallObservation } from "./observe/store.js";
export { makeSetMembershipDelta, type DeltaFunction, type CallResultView } from "./observe/novelty.js";
export { DEFAULT_VOLATILE_PATTERNS } from "./observe/volatile.js";
export { canonicalJson } from "./observe/canonical.js";
export { loadHasher, type Hasher } from "./observe/hash.js";

// loop guards
export { LoopGuardMiddleware, LOOP_GUARD_DEFAULTS, type LoopGuardOptions } from "./guards/loop/LoopGuardMiddleware.js";
export {
  ProgressAwareLoopGuardMiddleware,
  PROGRESS_GUARD_DEFAULTS,
  type ProgressAwareLoopGuardOptions,
} from "./guards/progress/ProgressAwareLoopGuardMiddleware.js";

// output validation
export {
  OutputValidatorMiddleware,
  OUTPUT_VALIDATOR_DEFAULTS,
  INVALID_OUTPUT_STOP_REASON,
  type OutputValidatorOptions,
} from "./guards/output/OutputValidatorMiddleware.js";
export type { ToolOutputSpec, Invariant, InvalidOutputMode, OutputErrorClass } from "./guards/output/spec.js";
export {
  InMemoryLastKnownGoodCache,
  type LastKnownGoodCache,
  type LastKnownGoodKey,
  type LastKnownGoodEntry,
  type InMemoryLastKnownGoodCacheOptions,
} from "./guards/output/cache.js";
export { ENVELOPE_TAG } from "./guards/output/envelope.js";
export { rewriteToolMessage, type ToolMessageMark } from "./core/answers.js";

// runaway guard
export { RunawayGuardMiddleware, RUNAWAY_GUARD_DEFAULTS, REPORT_EVENT, type RunawayGuardOptions } from "./guards/runaway/RunawayGuardMiddleware.js";
export type { RunawayReport, DelegationShare } from "./guards/runaway/report.js";
export type { TokenSource } from "./guards/runaway/ledger.js";

// tool-result budget and offload
export {
  ToolResultBudgetMiddleware,
  TOOL_RESULT_BUDGET_DEFAULTS,
  type ToolResultBudgetOptions,
  type BudgetAction,
} from "./guards/budget/ToolResultBudgetMiddleware.js";
export { approximateTokens, type BudgetUnit, type CountTokens } from "./guards/budget/measure.js";
export { RETRIEVAL_TOOL_NAME } from "./guards/budget/texts.js";
export type { OffloadStore, OffloadContext, OffloadReceipt } from "./offload/OffloadStore.js";
export { MemoryOffloadStore } from "./offload/MemoryOffloadStore.js";
export { LangGraphOffloadStore, LANGGRAPH_OFFLOAD_DEFAULTS, type LangGraphOffloadStoreOptions } from "./offload/LangGraphOffloadStore.js";
export {
  AgentFilesOffloadStore,
  AGENT_FILES_DEFAULTS,
  type AgentFilesOffloadStoreOptions,
  type AgentFilesBackend,
} from "./offload/AgentFilesOffloadStore.js";
export { OffloadStoreError } from "./offload/errors.js";
export { resultFingerprint } from "./observe/resultFingerprint.js";

// context-overflow guard
export {
  ContextOverflowGuardMiddleware,
  contextOverflowGuardOptions,
  type ContextOverflowGuardOptions,
} from "./guards/overflow/ContextOverflowGuardMiddleware.js";
export { isContextOverflowError, estimateTokens, CONTEXT_RECORD_KEY, readContextRecord, type ContextRecord, type RemovedPart } from "./guards/overflow/index.js";

// binary read guard
export {
  BinaryReadGuardMiddleware,
  BINARY_READ_GUARD_DEFAULTS,
  BINARY_READ_GUARD_ENV,
  binaryReadDirective,
  type BinaryReadGuardOptions,
  type BinaryReadContext,
} from "./guards/binary/BinaryReadGuardMiddleware.js";
export { mediaTypesAcceptedBy } from "./guards/binary/media.js";
export type { BinaryFinding, BinaryEvidence } from "./guards/binary/content.js";

// the recommended stack
export { recommendedGuards, type RecommendedGuards, type RecommendedGuardsOptions } from "./stack/recommendedGuards.js";

// replay (the engine behind `harness-kit inspect` / `eval`)
export { replayThread, type ReplayGuard, type StackedGuard, type ReplayedDecision, type ReplayResult } from "./replay/replayThread.js";

// tool-call repair
export { ToolCallRepairMiddleware, TOOL_CALL_REPAIR_DEFAULTS, type ToolCallRepairOptions } from "./guards/repair/ToolCallRepairMiddleware.js";
export { withSafeResults } from "./tools/withSafeResults.js";
export { renderValue } from "./core/renderValue.js";
export { parseToolArguments, type ParsedArguments, type ArgumentProblem } from "./guards/repair/parseArguments.js";

// policy guard (access and safety rules checked before a tool runs)
export {
  PolicyGuardMiddleware,
  type PolicyGuardOptions,
  type PolicyReviewRequest,
  type PolicyReviewDecision,
} from "./guards/policy/PolicyGuardMiddleware.js";
export {
  policy,
  parsePolicy,
  policyRulesSchema,
  policyJsonSchema,
  DEFAULT_RULE_ID,
  POLICY_METADATA_KEY,
  type PolicyRules,
  type PolicyRule,
  type Predicate,
  type Predicates,
  type Condition,
  type CallPattern,
  type ToolPattern,
  type FlowScope,
  type JsonValue,
  type PolicyDecisionKind,
  type HumanDecisionKind,
  type PolicyVerdict,
  type RuleHit,
} from "./guards/policy/index.js";
