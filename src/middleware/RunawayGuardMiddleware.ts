import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { stopNotice } from "../core/answers.js";
import type { CallDecision } from "../core/decision.js";
import { InvalidOptionsError } from "../core/errors.js";
import type { ToolCallView } from "../core/messages.js";
import { emitEvent, emitSignal, type SignalHandler } from "../core/signals.js";
import { decideRunaway, decideRunStart, type RunawaySettings } from "../guards/runaway.js";
import { ledgerFor } from "../guards/runawayLedger.js";
import { runawayReport, type RunawayReport } from "../guards/runawayReport.js";
import { MiddlewareBase, positiveInteger } from "./base.js";
import { batchGuardHook } from "./batchGuardHook.js";

export interface RunawayGuardOptions {
  /** Repetition factor at which one `warn` signal is emitted. Default 15. */
  warnAt?: number;
  /** Repetition factor from which calls to tools already called in this run are refused with a directive. Default 25. */
  blockAt?: number;
  /** Repetition factor at which the run stops: every pending call answered, a final message says why. Default 40. */
  stopAt?: number;
  /**
   * The run's input counts as at least this many tokens, so that a one-line question (whose
   * estimate lacks the system prompt and tool schemas) does not make any tool loop look like a
   * runaway. Default 1,000.
   */
  minInputTokens?: number;
  /** Stop a run once its model calls consumed this many tokens. Default: no cap. */
  maxRunTokens?: number;
  /** Stop once the thread's model calls consumed this many tokens, and refuse to start new runs. Default: no cap. */
  maxThreadTokens?: number;
  /** Tools that hand work to a subagent, for the delegation share in the run report. Default `["task"]` (deepagents). */
  delegationTools?: readonly string[];
  /** Emit signals only; never block or stop. Default false. */
  observeOnly?: boolean;
  /** Receives every decision other than allow. */
  onSignal?: SignalHandler;
  /** Receives one report per run, when the run ends (also sent as the custom event `harness_kit_report`). */
  onReport?: (report: RunawayReport) => void;
}

export const RUNAWAY_GUARD_DEFAULTS = { warnAt: 15, blockAt: 25, stopAt: 40, minInputTokens: 1_000, delegationTools: ["task"], observeOnly: false } as const;

/** Name of the LangChain custom event that carries every run report. */
export const REPORT_EVENT = "harness_kit_report";

/**
 * Stops a run whose token spend runs away, before its next tool calls execute and before the
 * next model call re-reads a context that keeps growing.
 *
 * - The run: the messages after the last HumanMessage.
 * - Input tokens: what the run's first model call read: its `usage_metadata.input_tokens`
 *   (system prompt, tool schemas and history included), and at least `minInputTokens`.
 * - Run tokens: what every model call of the run consumed, `input_tokens + output_tokens` each.
 *   Every call after the first is driven by tool calls and their results, so this is the cost
 *   of the tool loop.
 * - Repetition factor = run tokens ÷ input tokens: how many times over the run has paid for its
 *   input: about 1 for a direct answer, about the number of model calls for a loop whose
 *   context stays near the input's size, sooner when tool results grow the context. (The
 *   incident this guard exists for reached 42.8×: 5 inputs, 111 tool calls, 6.5 M tokens.)
 *
 * When a model call of the run lacks `usage_metadata`, all three are estimated instead, at 4
 * characters per token of the messages in state (text and tool-call arguments; the system
 * prompt and tool schemas are not in state, so estimated inputs are smaller). Signals say which
 * in `detail.source: "usage_metadata" | "estimate"`.
 *
 * Ladder, decided in `afterModel` before the batch runs: a `warn` signal when the factor crosses
 * `warnAt`; from `blockAt`, calls to tools already called in this run get a directive instead of
 * running (tools not yet called pass); at `stopAt`, or at a token cap, a clean stop. Subagent
 * tokens count only in the subagent, when the guard is passed to it as well. Everything is
 * derived from `state.messages`, so a restored thread gets the same decisions; a history that
 * LangChain's summarizationMiddleware rewrote counts only the messages it kept.
 *
 * Call counts are LangChain's: compose with `toolCallLimitMiddleware` and `modelCallLimitMiddleware`.
 *
 * @example
 * const agent = createAgent({
 *   model, tools,
 *   middleware: [
 *     new RunawayGuardMiddleware({ maxRunTokens: 2_000_000, onReport: (r) => metrics.record(r) }),
 *     modelCallLimitMiddleware({ runLimit: 60 }),
 *     toolCallLimitMiddleware({ runLimit: 120 }),
 *   ],
 * });
 */
export class RunawayGuardMiddleware extends MiddlewareBase {
  readonly name = "RunawayGuardMiddleware";
  readonly afterModel: { canJumpTo: ("end" | "model")[]; hook: ReturnType<typeof batchGuardHook> };
  /** Declared only with `maxThreadTokens`: a thread at its cap must not start another model call. */
  readonly beforeModel?: { canJumpTo: "end"[]; hook: (state: { messages: BaseMessage[] }) => Promise<{ messages: AIMessage[]; jumpTo: "end" } | undefined> };
  readonly afterAgent: (state: { messages: BaseMessage[] }) => Promise<undefined>;
  private readonly settings: RunawaySettings;
  private readonly delegationTools: ReadonlySet<string>;

  constructor(options: RunawayGuardOptions = {}) {
    super();
    const warnAt = factorOption(this.name, "warnAt", options.warnAt, RUNAWAY_GUARD_DEFAULTS.warnAt);
    const blockAt = factorOption(this.name, "blockAt", options.blockAt, RUNAWAY_GUARD_DEFAULTS.blockAt);
    const stopAt = factorOption(this.name, "stopAt", options.stopAt, RUNAWAY_GUARD_DEFAULTS.stopAt);
    if (warnAt > blockAt) throw new InvalidOptionsError(this.name, "warnAt", `(${warnAt}) must not exceed blockAt (${blockAt})`);
    if (blockAt > stopAt) throw new InvalidOptionsError(this.name, "blockAt", `(${blockAt}) must not exceed stopAt (${stopAt})`);
    this.settings = {
      warnAt,
      blockAt,
      stopAt,
      minInputTokens: positiveInteger(this.name, "minInputTokens", options.minInputTokens, RUNAWAY_GUARD_DEFAULTS.minInputTokens),
      maxRunTokens: options.maxRunTokens === undefined ? undefined : positiveInteger(this.name, "maxRunTokens", options.maxRunTokens, 1),
      maxThreadTokens: options.maxThreadTokens === undefined ? undefined : positiveInteger(this.name, "maxThreadTokens", options.maxThreadTokens, 1),
    };
    const observeOnly = options.observeOnly ?? RUNAWAY_GUARD_DEFAULTS.observeOnly;
    const { onSignal, onReport } = options;
    this.delegationTools = new Set(options.delegationTools ?? RUNAWAY_GUARD_DEFAULTS.delegationTools);

    this.afterModel = {
      canJumpTo: ["end", "model"],
      hook: batchGuardHook({ guard: this.name, exitBehavior: "end", observeOnly, onSignal, decide: this.decideNow }),
    };

    if (this.settings.maxThreadTokens !== undefined) {
      this.beforeModel = {
        canJumpTo: ["end"],
        hook: async (state) => {
          let decision;
          try {
            decision = decideRunStart(ledgerFor(state.messages), this.settings);
          } catch (error) {
            await emitSignal({ guard: this.name, action: "warn", reason: "guard_failed", detail: { error: String(error) } }, onSignal);
            return undefined;
          }
          if (decision.action !== "stop") return undefined;
          await emitSignal(
            { guard: this.name, action: "stop", reason: decision.reason, detail: observeOnly ? { ...decision.detail, observeOnly: true } : decision.detail },
            onSignal,
          );
          return observeOnly ? undefined : { messages: [stopNotice(this.name, decision.reason)], jumpTo: "end" };
        },
      };
    }

    this.afterAgent = async (state) => {
      let report: RunawayReport;
      try {
        report = this.report(state.messages);
      } catch (error) {
        await emitSignal({ guard: this.name, action: "warn", reason: "guard_failed", detail: { error: String(error) } }, onSignal);
        return undefined;
      }
      await emitEvent(REPORT_EVENT, report, onReport);
      return undefined;
    };
  }

  /**
   * The guard's decision for a batch of pending calls, given the history that precedes them
   * (ending with the AIMessage that asked for them). The live hook and replay both call this.
   */
  readonly evaluate = async (messages: readonly BaseMessage[], pending: readonly ToolCallView[]): Promise<CallDecision[]> => this.decideNow(messages, pending);

  private readonly decideNow = (messages: readonly BaseMessage[], pending: readonly ToolCallView[]): CallDecision[] =>
    decideRunaway(ledgerFor(messages), pending, this.settings);

  /** The report of the run that `messages` ends with, as `onReport` receives it. */
  readonly report = (messages: readonly BaseMessage[]): RunawayReport => runawayReport(this.name, ledgerFor(messages), this.delegationTools, this.settings.minInputTokens);
}

/** A factor threshold: a number > 0; `Infinity` turns the tier off. */
function factorOption(middleware: string, option: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (typeof resolved !== "number" || Number.isNaN(resolved) || resolved <= 0) {
    throw new InvalidOptionsError(middleware, option, `must be a number > 0 (Infinity turns the tier off), got ${String(value)}`);
  }
  return resolved;
}

