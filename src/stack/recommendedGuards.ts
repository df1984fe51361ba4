import type { AgentMiddleware } from "langchain";
import type { SignalHandler } from "../core/signals.js";
import type { ToolOutputSpec } from "../guards/output/spec.js";
import { BinaryReadGuardMiddleware, type BinaryReadGuardOptions } from "../guards/binary/BinaryReadGuardMiddleware.js";
import {
  ContextOverflowGuardMiddleware,
  type ContextOverflowGuardOptions,
} from "../guards/overflow/ContextOverflowGuardMiddleware.js";
import { LoopGuardMiddleware, type LoopGuardOptions } from "../guards/loop/LoopGuardMiddleware.js";
import { OutputValidatorMiddleware, type OutputValidatorOptions } from "../guards/output/OutputValidatorMiddleware.js";
import { PolicyGuardMiddleware, type PolicyGuardOptions } from "../guards/policy/PolicyGuardMiddleware.js";
import type { PolicyRules } from "../guards/policy/rules.js";
import {
  ProgressAwareLoopGuardMiddleware,
  type ProgressAwareLoopGuardOptions,
} from "../guards/progress/ProgressAwareLoopGuardMiddleware.js";
import { RunawayGuardMiddleware, type RunawayGuardOptions } from "../guards/runaway/RunawayGuardMiddleware.js";
import { ToolCallRepairMiddleware, type ToolCallRepairOptions } from "../guards/repair/ToolCallRepairMiddleware.js";
import {
  ToolResultBudgetMiddleware,
  type ToolResultBudgetOptions,
} from "../guards/budget/ToolResultBudgetMiddleware.js";
import { composeGuards } from "./composeGuards.js";
import { AgentFilesOffloadStore, type AgentFilesBackend } from "../offload/AgentFilesOffloadStore.js";
import { MemoryOffloadStore } from "../offload/MemoryOffloadStore.js";
import type { OffloadStore } from "../offload/OffloadStore.js";

export interface RecommendedGuardsOptions {
  /** Tools that change things outside the agent (send, book, update): refused while tool output is bad. */
  writeTools?: readonly string[];
  /** Tools that only read, a hint for the progress guard (tools named get_*, list_*, read_*, ... already count). */
  readOnlyTools?: readonly string[];
  /** Output specs per tool for the validator; tools without one pass unchecked. */
  outputSpecs?: Readonly<Record<string, ToolOutputSpec>>;
  /** Where `agent`'s oversized results go. Default: a `MemoryOffloadStore` (this process only). */
  offloadStore?: OffloadStore;
  /**
   * The `backend` you gave `createDeepAgent`, if any: `deepAgent` stores oversized results through
   * it, so the agent's own `read_file` finds them (a `FilesystemBackend` or `StoreBackend` never
   * reads the state `files` the default writes). Default: the state files, deepagents' default.
   */
  backend?: AgentFilesBackend;
  /** A `PathGuardMiddleware` from "harness-kit/node", placed where it belongs in the order. */
  pathGuard?: AgentMiddleware;
  /** Receives every signal of every guard. */
  onSignal?: SignalHandler;
  /**
   * Every guard signals what it would do and changes nothing: no call refused, no result
   * replaced, no run stopped. A guard's own `observeOnly: false` enforces that guard alone.
   * A `pathGuard` you built keeps its own setting. Default false.
   */
  observeOnly?: boolean;
  /** Access and safety rules checked before any tool runs (PolicyGuardMiddleware). Off unless given. */
  policy?: PolicyRules | PolicyGuardOptions;
  /** Options of one guard, over the stack's defaults (each guard's own defaults otherwise). */
  runaway?: RunawayGuardOptions;
  loopGuard?: LoopGuardOptions;
  progressGuard?: ProgressAwareLoopGuardOptions;
  budget?: ToolResultBudgetOptions;
  validator?: OutputValidatorOptions;
  binaryGuard?: BinaryReadGuardOptions;
  repair?: ToolCallRepairOptions;
  contextOverflow?: ContextOverflowGuardOptions;
}

export interface RecommendedGuards {
  /** `createAgent({ middleware: guards.agent })` */
  readonly agent: AgentMiddleware[];
  /** `createDeepAgent({ middleware: guards.deepAgent })`: large results go to the agent's own files. */
  readonly deepAgent: AgentMiddleware[];
  /** `subagents: [{ ..., middleware: guards.subagent }]`: deepagents does not pass its middleware down (the same stack as `deepAgent`). */
  readonly subagent: AgentMiddleware[];
}

/**
 * Every harness-kit guard with defaults safe for a production agent, in the order that makes them
 * work together. Every guard attaches through `wrapModelCall` and `wrapToolCall` only (no graph
 * step), and wrap hooks nest first-outside, so:
 * - the runaway guard is outermost: it judges each batch first and sees every way a run ends
 *   (a final answer, any guard's stop, an exception), so it reports every run;
 * - the policy guard comes right after it, before anything runs: a denied call never reaches a
 *   tool or another guard, and a call waiting for approval is never one the runaway guard is
 *   about to stop (no reviewer is asked about a call that would not run);
 * - the progress guard judges before the identical-call guard: a repeat it refuses never counts
 *   as another identical call;
 * - binary guard, validator and budget nest inside-out: the binary guard and the validator see
 *   the raw result, the budget cuts what they let through and records the original's fingerprint;
 * - the path guard checks arguments before anything runs;
 * - the context-overflow guard shrinks the request last, just before the model: a stop another
 *   guard decided costs no shrinking, and it offloads into the budget's store (whose
 *   `read_stored_result`, or the deep agent's `read_file`, reads it back);
 * - the repair middleware is last: its `wrapModelCall` fixes the model's calls before they enter
 *   state (every other guard judges the repaired calls), and its `wrapToolCall` turns tool
 *   exceptions into short answers next to the tool.
 *
 * Beside LangChain's built-ins: list `toolRetryMiddleware`, `toolErrorMiddleware` and
 * `modelRetryMiddleware` after these guards, so they see the tool's and the model's own errors;
 * every other built-in keeps its meaning in either place (docs/composing.md).
 *
 * @example
 * const guards = recommendedGuards({ writeTools: ["send_email"] });
 * const agent = createAgent({ model, tools, middleware: guards.agent });
 */
export function recommendedGuards(options: RecommendedGuardsOptions = {}): RecommendedGuards {
  // A guard's own options come last, so one guard can enforce while the stack observes.
  const base: GuardBase = { onSignal: options.onSignal, ...(options.observeOnly ? { observeOnly: true } : {}) };
  const judges = (): AgentMiddleware[] => [
    new RunawayGuardMiddleware({ ...base, ...options.runaway }),
    ...(options.policy ? [policyGuard(options.policy, base)] : []),
    new ProgressAwareLoopGuardMiddleware({
      readOnlyTools: options.readOnlyTools,
      stateChangingTools: options.writeTools,
      ...base,
      ...options.progressGuard,
    }),
    new LoopGuardMiddleware({ ...base, ...options.loopGuard }),
  ];
  const resultGuards = (budget: ToolResultBudgetMiddleware): AgentMiddleware[] => [
    budget,
    new OutputValidatorMiddleware({
      tools: options.outputSpecs,
      writeTools: options.writeTools,
      ...base,
      ...options.validator,
    }),
    new BinaryReadGuardMiddleware({ ...base, ...options.binaryGuard }),
  ];
  const callGuards = (store: OffloadStore, budget: ToolResultBudgetMiddleware): AgentMiddleware[] => [
    ...(options.pathGuard ? [options.pathGuard] : []),
    // It offloads into the budget's store, read back by the budget's read_stored_result (a deep agent: its read_file).
    new ContextOverflowGuardMiddleware({
      store: options.budget?.store ?? store,
      retrievalTool: budget.tools[0] ?? false,
      ...base,
      ...options.contextOverflow,
    }),
    new ToolCallRepairMiddleware({ ...base, ...options.repair }),
  ];
  const stackFor = (store: OffloadStore): AgentMiddleware[] => {
    const budget = new ToolResultBudgetMiddleware({ store, ...base, ...options.budget });
    return composeGuards("HarnessKitGuards", [...judges(), ...resultGuards(budget), ...callGuards(store, budget)]);
  };

  // Built when first read: most agents take only one of the two stacks.
  let deepAgent: AgentMiddleware[] | undefined;
  const deepStack = () => (deepAgent ??= stackFor(new AgentFilesOffloadStore({ backend: options.backend })));
  return {
    agent: stackFor(options.offloadStore ?? new MemoryOffloadStore()),
    get deepAgent() {
      return deepStack();
    },
    get subagent() {
      return deepStack();
    },
  };
}

/** What every guard of the stack gets before its own options. */
interface GuardBase {
  onSignal?: SignalHandler;
  observeOnly?: boolean;
}

function policyGuard(policy: PolicyRules | PolicyGuardOptions, base: GuardBase): PolicyGuardMiddleware {
  return "policy" in policy
    ? new PolicyGuardMiddleware({ ...base, ...policy })
    : new PolicyGuardMiddleware({ policy, ...base });
}
