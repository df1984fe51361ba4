import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import { notRunText, stopNotice } from "../core/answers.js";
import type { CallDecision, Decision, ExitBehavior } from "../core/decision.js";
import { isGraphBubbleUp } from "@langchain/langgraph";
import { modelErrorOutsideText, warnOnce } from "../core/composition.js";
import { GuardStopError } from "../core/errors.js";
import { andThen, promisedCall, type MaybePromise } from "../core/maybePromise.js";
import { recordWouldBeRefusal, stampTurn } from "../core/ranStamps.js";
import { stopFactsOf, stopMarkIn, type StopFacts } from "../core/marks.js";
import { latestTurnIndex, toolCallIdOf, toolCallsOf, type ToolCallView } from "../core/messages.js";
import { emitSignal, type SignalHandler } from "../core/signals.js";
import { runToolSafely } from "../core/toolErrors.js";
import { batchStop, callOutcome, judgedCalls, refuses, type BatchStop, type CallOutcome } from "../core/verdict.js";
import type { GuardState } from "./carry.js";
import { answeredOutside } from "./refusedCalls.js";
import {
  answerCall,
  judgePendingCall,
  signalCall,
  type CallAnswer,
  type PendingCall,
  type RunCall,
  type ToolHandler,
  type ToolRequestLike,
} from "./pendingCall.js";

export interface BatchGuardSettings {
  guard: string;
  exitBehavior: ExitBehavior;
  observeOnly: boolean;
  onSignal?: SignalHandler;
  /** Whether this guard judges calls the repair review found unusable; other guards leave them to it. */
  judgesUnusableCalls?: boolean;
  /** Decisions for a batch, given the history that ends with the AIMessage that asked for it. */
  decide: (
    messages: readonly BaseMessage[],
    batch: readonly ToolCallView[],
  ) => CallDecision[] | Promise<CallDecision[]>;
  /**
   * Reviews the model's response to `request` before it is stamped and enters state (the repair
   * guard's review), in the model call's own promise step; what it throws goes where the model's
   * error would.
   */
  review?(response: AIMessage | Command, request: ModelRequestLike): MaybePromise<AIMessage | Command>;
  /**
   * Runs the calls the guard lets through in place of `runToolSafely` (pendingCall.ts `RunCall`):
   * the repair guard's wrapper next to the tool, called with the tool's own handler.
   */
  run?: RunCall;
}

/** The part of LangChain's model request the stop check reads. */
export interface ModelRequestLike {
  state?: Partial<GuardState>;
}

export type ModelHandler<R> = (request: R) => AIMessage | Command | Promise<AIMessage | Command>;

/** What the guard made of one batch: each call's decision, and the stop that ends the run, if any. */
interface Verdict {
  byId: Map<string, Decision>;
  stop: BatchStop | undefined;
}

/**
 * A guard that judges each batch of tool calls as a whole, attached through the wrap hooks only
 * (docs/architecture.md, "Two kinds of guard"), so it costs no graph step:
 * - `wrapToolCall`: every call of a batch runs in its own task, sees the same state and so the
 *   same batch verdict (decided once per AIMessage); a refused call is answered with the guard's
 *   ToolMessage instead of running; a stop answers every call of the batch;
 * - `wrapModelCall`: after a batch this guard stopped, the run's final AIMessage is returned
 *   without calling the model, which ends the run with pairing intact; otherwise the model's
 *   turn is stamped as one a guard saw (core/ranStamps.ts).
 * A tool's exception still becomes an error ToolMessage, as it would without any wrapToolCall.
 * Calls the repair middleware's review found unusable are left to it: it explains them better.
 * Every answer also carries the history the guard judged (see carry.ts), so judgement survives a summary.
 */
export function batchGuard(settings: BatchGuardSettings) {
  // A cache, not state: keyed by the AIMessage, so a thread another process resumes decides again.
  // A verdict decided at once is kept as it is: most batches need no promise at all.
  const verdicts = new WeakMap<object, MaybePromise<Verdict>>();
  const run: RunCall = settings.run ?? runToolSafely;

  const verdictOf = (messages: readonly BaseMessage[], at: number): MaybePromise<Verdict> => {
    const asking = messages[at] as object;
    let verdict = verdicts.get(asking);
    if (!verdict) {
      const history = at === messages.length - 1 ? messages : messages.slice(0, at + 1);
      try {
        // The guard decides the calls that reach it: a sibling answered on its way in did not run,
        // so it is no earlier call of the batch (an identical call, a duplicate, a change of the
        // world). A stop about the turn (a token cap) rides on the first of them.
        const outside = answeredOutside(asking, messages, at);
        const calls = judgedCalls(asking, settings.judgesUnusableCalls);
        const reaching = outside.size === 0 ? calls : calls.filter((call) => !outside.has(call.id));
        const decided = settings.decide(history, reaching);
        verdict =
          decided instanceof Promise
            ? decided.then((decisions) => verdictFrom(decisions, settings, outside))
            : verdictFrom(decided, settings, outside);
      } catch (error) {
        verdict = Promise.reject(error);
      }
      verdicts.set(asking, verdict);
    }
    return verdict;
  };

  const wrapToolCall = <R extends ToolRequestLike>(
    request: R,
    handler: ToolHandler<R>,
  ): Promise<ToolMessage | Command> => judgePendingCall(request, handler, judged, run);

  /** The call's answer: the guard's, or the tool's when the guard lets it run. */
  const judged = <R extends ToolRequestLike>(
    request: R,
    handler: ToolHandler<R>,
    { call, messages, at }: PendingCall,
  ): MaybePromise<ToolMessage | Command> => {
    const verdict = verdictOf(messages, at);
    if (!(verdict instanceof Promise)) return answered(request, handler, call, verdict);
    return verdict.then(
      (settled) => answered(request, handler, call, settled),
      async (error: unknown) => {
        await emitSignal(
          {
            guard: settings.guard,
            action: "warn",
            toolCallId: call.id,
            tool: call.name,
            code: "guard_failed",
            reason: "guard_failed",
            detail: { error: String(error) },
          },
          settings.onSignal,
        );
        return run(request, handler);
      },
    );
  };

  /** The call's answer under `verdict`, after its signal. */
  const answered = <R extends ToolRequestLike>(
    request: R,
    handler: ToolHandler<R>,
    call: ToolCallView,
    verdict: Verdict,
  ): MaybePromise<ToolMessage | Command> => {
    const own = verdict.byId.get(call.id);
    const { stop } = verdict;
    // The common case, the call runs: no outcome to work out (a step runs less of our code).
    if (!stop && (own === undefined || own.action === "allow")) return run(request, handler);
    if (own && own.action !== "allow")
      return signalCall(settings, call, own).then(() => outcomeAnswer(request, handler, call, own, verdict));
    return outcomeAnswer(request, handler, call, own, verdict);
  };

  const outcomeAnswer = <R extends ToolRequestLike>(
    request: R,
    handler: ToolHandler<R>,
    call: ToolCallView,
    own: Decision | undefined,
    verdict: Verdict,
  ): MaybePromise<ToolMessage | Command> => {
    const outcome = callOutcome(own, verdict.stop, settings.observeOnly);
    if (outcome.kind === "stopped" && settings.exitBehavior === "throw")
      throw new GuardStopError(settings.guard, outcome.stop.reason, call.name, call.id);
    const answer = answerCall(settings, request, handler, answerOf(outcome, settings.guard), run);
    // An observe-only guard's refusal is written on the answer of the call it let run: its next
    // judgement reads a repeat as the model ignoring it, as it would have live (marks.ts).
    if (settings.observeOnly && refuses(own, false))
      return andThen(answer, (ran) =>
        recordWouldBeRefusal(ran, { guard: settings.guard, action: own!.action }, call.id),
      );
    return answer;
  };

  const wrapModelCall = <R extends ModelRequestLike>(
    request: R,
    handler: ModelHandler<R>,
  ): Promise<AIMessage | Command> => {
    const messages = request.state?.messages ?? [];
    const stop = stopMarkIn(messages, settings.guard);
    if (stop) return signalUncarriedStop(messages).then(() => stopNotice(settings.guard, stop.reason));
    const called = promisedCall(handler, request);
    const { review } = settings;
    if (!review) return called.then(stampTurn, modelError);
    return called.then((response) => {
      let reviewed: MaybePromise<AIMessage | Command>;
      try {
        reviewed = review.call(settings, response, request);
      } catch (error) {
        return modelError(error);
      }
      return reviewed instanceof Promise ? reviewed.then(stampTurn, modelError) : stampTurn(reviewed);
    }, modelError);
  };

  /**
   * The stop of the batch `messages` end with, signalled on the first call (in the batch's order)
   * that reached the guard, when the call it was decided on never did: a middleware listed before
   * the guards answered it while they judged the batch. Its siblings already said why they did not
   * run. Read from their answers alone, so whichever process takes the next model call signals it.
   */
  const signalUncarriedStop = (messages: readonly BaseMessage[]): Promise<void> => {
    const at = latestTurnIndex(messages);
    if (at < 0) return Promise.resolve();
    const stopped = new Map<string, StopFacts>();
    for (let i = at + 1; i < messages.length; i++) {
      const facts = stopFactsOf(messages[i], settings.guard);
      if (facts) stopped.set(toolCallIdOf(messages[i]) ?? "", facts);
    }
    const first = toolCallsOf(messages[at]).find((call) => stopped.has(call.id));
    if (!first) return Promise.resolve();
    const stop = stopped.get(first.id)!;
    // The call the stop was decided on, when it reached the guard, signalled it then.
    if (stopped.has(stop.on)) return Promise.resolve();
    return signalCall(settings, first, { action: "stop", code: stop.code, reason: stop.reason, detail: stop.detail });
  };

  /** An exception on the way back from the model, thrown on; one that is not the guards' is warned of once. */
  const modelError = (error: unknown): never => {
    if (!isGraphBubbleUp(error) && !GuardStopError.in(error))
      warnOnce("model-error-outside", modelErrorOutsideText, true);
    throw error;
  };

  /**
   * Whether `messages` end with the answers to a batch this guard judged, at least one call of it
   * (not when it had none left: all unusable, or all answered by an outer guard). The verdict
   * cache knows, since a call that reaches the guard fills it; the answers cannot tell, as an
   * outer middleware may answer without a mark. A process that resumes a thread between the tool
   * and model nodes does not know either: it judges that turn again, to the same decision.
   */
  const judgedLatestBatch = (messages: readonly BaseMessage[]): MaybePromise<boolean> => {
    const at = latestTurnIndex(messages);
    const verdict = at >= 0 ? verdicts.get(messages[at] as object) : undefined;
    if (!verdict) return false;
    // A verdict that failed was signalled as guard_failed, and the calls ran: the batch was judged.
    return verdict instanceof Promise
      ? verdict.then(
          ({ byId }) => byId.size > 0,
          () => true,
        )
      : verdict.byId.size > 0;
  };

  return { wrapToolCall, wrapModelCall, judgedLatestBatch };
}

export type BatchGuardHooks = ReturnType<typeof batchGuard>;

/** The verdict on a batch; the calls this guard refuses are noted in `outside` for the guards inside it. */
function verdictFrom(decisions: readonly CallDecision[], settings: BatchGuardSettings, outside: Set<string>): Verdict {
  const byId = new Map<string, Decision>();
  let acts = false;
  for (const { call, decision } of decisions) {
    if (!byId.has(call.id)) byId.set(call.id, decision);
    if (decision.action !== "allow") acts = true;
  }
  // Nothing but allows (nearly every batch): no stop, no refusal to note.
  if (!acts) return { byId, stop: undefined };
  // Every call decided reaches the guard, or is on its way when it judges the batch.
  const stop: BatchStop | undefined = batchStop(decisions, settings);
  if (!stop) for (const [id, decision] of byId) if (refuses(decision, settings.observeOnly)) outside.add(id);
  return { byId, stop };
}

/** A call's outcome as the answer it gets: a stop's sibling calls say they were not run, and what stopped it. */
function answerOf(outcome: CallOutcome, guard: string): CallAnswer<never> {
  if (outcome.kind === "runs") return { kind: "run" };
  if (outcome.kind === "refused") return { kind: "refuse", text: outcome.own.message };
  const { reason, call, decision } = outcome.stop;
  const facts = { reason, on: call.id, code: decision.code };
  return {
    kind: "stop",
    text: outcome.own?.message ?? notRunText(guard),
    stop: decision.detail === undefined ? facts : { ...facts, detail: decision.detail },
  };
}
