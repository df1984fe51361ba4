import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import { isGraphBubbleUp } from "@langchain/langgraph";
import { stopNotice } from "../../core/answers.js";
import type { CallDecision, Decision } from "../../core/decision.js";
import { andThen, type MaybePromise } from "../../core/maybePromise.js";
import { parseOptions } from "../../core/baseOptions.js";
import { latestTurnIndex, toolCallsOf, type ToolCallView } from "../../core/messages.js";
import { emitEvent, emitSignal, heard, observedDetail, type SignalHandler } from "../../core/signals.js";
import { decideRunaway, decideTurn, type RunawaySettings } from "./decide.js";
import { ledgerFor } from "./ledger.js";
import { runawayReport, type RunawayReport } from "./report.js";
import { runawayGuardOptions, type RunawayGuardOptions } from "./options.js";
import { BatchGuardMiddleware } from "../../hooks/batchGuardMiddleware.js";
import type { ModelHandler, ModelRequestLike } from "../../hooks/batchGuard.js";
import { readyHistory, withReadyHistory } from "../../hooks/summaryRemovals.js";
import type { BatchFacts, QuietJudge } from "../../hooks/quietJudge.js";

export type { RunawayGuardOptions };

/** Name of the LangChain custom event that carries every run report. */
export const REPORT_EVENT = "harness_kit_report";

/**
 * Stops a run that keeps paying for model calls that learn nothing, before its next tool calls
 * execute and before the next model call re-reads the context again.
 *
 * - The run: the messages after the last HumanMessage.
 * - A model call learns nothing when every tool result it is the first to read brought nothing
 *   new: each repeated what its call (same tool, same arguments) returned before, by the
 *   observation store's `newInformationDelta` (the judgement the loop guards share), or a guard
 *   answered in place of the tool. A new call, or a repeat whose result changed, is progress.
 *   Results without text (a no-op `think`) count neither way.
 * - Runaway factor = tokens consumed (input + output, from `usage_metadata`) by the model calls
 *   that learned nothing since the last one that did ÷ the input of that last one (at least
 *   `minInputTokens`): how many times over the run has re-read its context without learning
 *   anything. About 1 per such call; more when the repeats themselves grow the context. It
 *   starts again at 0 whenever a result brings something new, so a long healthy run, whose
 *   re-reads grow with the square of its length, does not accumulate it.
 *
 * When a model call of the run lacks `usage_metadata`, tokens are estimated instead, at 4
 * characters per token of the messages in state (the system prompt and tool schemas are not in
 * state). Being a ratio, the factor barely depends on which. Signals say which in
 * `detail.source: "usage_metadata" | "estimate"`.
 *
 * Ladder, decided before the batch runs: a `warn` signal when the factor crosses `warnAt`; from
 * `blockAt`, a call that repeats one already made in this run gets a directive instead of
 * running (new calls pass: they are how the run can learn something again); at `stopAt`, or at
 * a token cap, a clean stop. A turn none of whose calls reach the guard (all to phantom tools,
 * which the repair middleware answers, or all answered by an outer middleware) meets the caps
 * and the stop tier before the next model call instead. The 111-call, 6.5 M-token incident this
 * guard exists for (five inputs read over and over by one tool) stops at its 31st call. Subagent tokens count only in
 * the subagent, when the guard is passed to it as well. Everything is derived from the history
 * (`state.messages`, and what the guards carry across a summary), so a restored thread and a
 * replay get the same decisions, and a summary does not start the count over.
 *
 * A run that keeps finding new things is never a runaway by this measure, however long it gets:
 * cap it with `maxRunTokens`, and count calls with `toolCallLimitMiddleware` and
 * `modelCallLimitMiddleware`.
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
export class RunawayGuardMiddleware extends BatchGuardMiddleware {
  readonly name = "RunawayGuardMiddleware";
  private readonly settings: RunawaySettings;
  private readonly delegationTools: ReadonlySet<string>;

  constructor(options: RunawayGuardOptions = {}) {
    super();
    const {
      warnAt,
      blockAt,
      stopAt,
      minInputTokens,
      maxRunTokens,
      maxThreadTokens,
      delegationTools,
      observeOnly,
      onSignal,
      onReport,
    } = parseOptions(this.name, runawayGuardOptions, options);
    this.settings = { warnAt, blockAt, stopAt, minInputTokens, maxRunTokens, maxThreadTokens };
    this.delegationTools = new Set(delegationTools);

    // Its own hooks wrap the batch guard's, to report each run as it ends.
    const batch = this.attach({ observeOnly, onSignal }, "end", this.decideNow);
    const reported = new WeakSet<object>();
    /**
     * One report per run end; `endedBy` is the message the run ended with (several parallel calls
     * may throw). The run is `history`, then `answer` if the model's answer ended it: joined only
     * for a report someone receives.
     */
    const report = async (history: readonly BaseMessage[], endedBy: object, answer?: AIMessage): Promise<void> => {
      if (reported.has(endedBy) || !heard(onReport)) return;
      reported.add(endedBy);
      let payload: RunawayReport;
      try {
        payload = this.report(answer ? [...history, answer] : history);
      } catch (error) {
        await emitSignal(
          {
            guard: this.name,
            action: "warn",
            code: "guard_failed",
            reason: "guard_failed",
            detail: { error: String(error) },
          },
          onSignal,
        );
        return;
      }
      await emitEvent(REPORT_EVENT, payload, onReport);
    };
    this.reportRun = report;

    this.wrapToolCall = (request, handler) =>
      batch.wrapToolCall(request, handler).catch(async (error: unknown) => {
        // The run ends with this exception (exitBehavior "throw", a failing tool): report it first.
        const { messages } = request.state;
        if (!isGraphBubbleUp(error))
          await report(await readyHistory(request.state), messages[messages.length - 1] ?? request);
        throw error;
      });

    /** The model call of a run whose history is ready: inside the batch guard's hook, whose stop comes first. */
    const modelCall = <R extends ModelRequestLike>(
      request: R,
      handler: ModelHandler<R>,
      messages: readonly BaseMessage[],
    ): Promise<AIMessage | Command> => {
      // The common step knows at once that the batch guard judged the turn's calls: the model is
      // called as it is (the judgement reads only the verdict cache, so asking before the stop check changes nothing).
      const judged = batch.judgedLatestBatch(messages);
      return batch
        .wrapModelCall(
          request,
          judged === true
            ? handler
            : (checked: R) =>
                // A turn none of whose calls the batch guard judged is judged here.
                andThen(judged, (settled) =>
                  settled
                    ? handler(checked)
                    : andThen(this.turnStop(messages, observeOnly, onSignal), (stop) => stop ?? handler(checked)),
                ),
        )
        .then(
          // An answer without tool calls ends the run: the model's, or a stop notice of any guard inside this one.
          (response) =>
            AIMessage.isInstance(response) && (response.tool_calls?.length ?? 0) === 0
              ? report(messages, response, response).then(() => response)
              : response,
          async (error: unknown) => {
            if (!isGraphBubbleUp(error)) await report(messages, messages[messages.length - 1] ?? request);
            throw error;
          },
        );
    };

    this.wrapModelCall = withReadyHistory(modelCall);
  }

  /**
   * Where `decideRunaway` and `decideTurn` can only allow (decide.ts `idle`): with no token cap, a
   * model call that began its run or read something new leaves the stall empty; with a cap, the
   * ledger tells. A response without tool calls ends the run: the guard reports it, as its hook would.
   */
  readonly quiet: QuietJudge = {
    readsThread: true,
    passesCall: (_call, _asking, batch) => this.idleAfter(batch),
    passesRequest: (request, batch) => (this.idleAfter(batch) ? request : undefined),
    settle: (response, history) =>
      (response.tool_calls?.length ?? 0) === 0 ? this.reportRun(history, response, response) : undefined,
  };

  /** Reports the run that `history` (and `answer`) end with, once per `endedBy` (built with the hooks, which report through it too). */
  private readonly reportRun!: (history: readonly BaseMessage[], endedBy: object, answer?: AIMessage) => Promise<void>;

  private idleAfter(batch: BatchFacts): boolean {
    const { maxRunTokens, maxThreadTokens, blockAt, stopAt } = this.settings;
    if (!(blockAt > 0 && stopAt > 0)) return false;
    if (maxRunTokens === undefined && maxThreadTokens === undefined) return batch.learned;
    return ledgerFor(batch.history).idleBelow(Math.min(maxRunTokens ?? Infinity, maxThreadTokens ?? Infinity));
  }

  /**
   * The latest model turn, judged before the next model call when none of its calls reached the
   * batch guard (none left after the repair guard's, an outer guard answered them all, or a run's
   * start): at a token cap or the stop tier, the stop notice instead of the model. Every turn meets
   * the caps, whatever its calls. Only a stop is decided here, never a warning: a process that
   * resumes the thread between the tool and model nodes judges its turn again, and would warn
   * twice (a stop the batch made is already in its answers).
   */
  private turnStop(
    messages: readonly BaseMessage[],
    observeOnly: boolean,
    onSignal: SignalHandler | undefined,
  ): MaybePromise<AIMessage | undefined> {
    let decision;
    try {
      decision = decideTurn(ledgerFor(messages), this.settings);
    } catch (error) {
      return emitSignal(
        {
          guard: this.name,
          action: "warn",
          code: "guard_failed",
          reason: "guard_failed",
          detail: { error: String(error) },
        },
        onSignal,
      ).then(() => undefined);
    }
    if (decision.action !== "stop") return undefined;
    const detail = observedDetail(decision.detail, observeOnly);
    const notice = observeOnly ? undefined : stopNotice(this.name, decision.reason);
    // Named after the turn's first call, where replay shows it; a run's start has none.
    const first = toolCallsOf(latestTurn(messages))[0];
    const call = first ? { toolCallId: first.id, tool: first.name } : {};
    return emitSignal(
      { guard: this.name, action: "stop", ...call, code: decision.code, reason: decision.reason, detail },
      onSignal,
    ).then(() => notice);
  }

  /**
   * The guard's decision on the model turn `messages` end with, when none of its calls reached
   * the guard (see `turnStop`). The live hook and replay both call `decideTurn`.
   */
  readonly evaluateTurn = async (messages: readonly BaseMessage[]): Promise<Decision> =>
    decideTurn(ledgerFor(messages), this.settings);

  private readonly decideNow = (messages: readonly BaseMessage[], pending: readonly ToolCallView[]): CallDecision[] =>
    decideRunaway(ledgerFor(messages), pending, this.settings);

  /** The report of the run that `messages` ends with, as `onReport` receives it. */
  readonly report = (messages: readonly BaseMessage[]): RunawayReport =>
    runawayReport(this.name, ledgerFor(messages), this.delegationTools, this.settings.minInputTokens);
}

/** The model turn `messages` end with, past its answers: undefined at a run's start. */
function latestTurn(messages: readonly BaseMessage[]): BaseMessage | undefined {
  const at = latestTurnIndex(messages);
  return at < 0 ? undefined : messages[at];
}
