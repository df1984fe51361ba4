import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import { guardToolMessage, notRunText, stopNotice } from "../core/answers.js";
import type { CallDecision, Decision, ExitBehavior } from "../core/decision.js";
import { GuardStopError } from "../core/errors.js";
import { stopMarkIn, unusableCallIds } from "../core/marks.js";
import { messageKind, toolCallsOf, type ToolCallView } from "../core/messages.js";
import { emitSignal, type SignalHandler } from "../core/signals.js";
import { runToolSafely } from "../core/toolErrors.js";
import { batchStop, callOutcome, type GuardMode } from "../core/verdict.js";
import { historyOf, withCarry, type GuardState } from "./carry.js";

export interface BatchGuardSettings {
  guard: string;
  exitBehavior: ExitBehavior;
  observeOnly: boolean;
  onSignal?: SignalHandler;
  /** Whether this guard judges calls the repair review found unusable; other guards leave them to it. */
  judgesUnusableCalls?: boolean;
  /** Decisions for a batch, given the history that ends with the AIMessage that asked for it. */
  decide: (messages: readonly BaseMessage[], batch: readonly ToolCallView[]) => CallDecision[] | Promise<CallDecision[]>;
}

/** The part of LangChain's tool-call request a batch guard reads. */
export interface ToolRequestLike {
  toolCall: { id?: string; name: string; args: unknown };
  state: GuardState;
}

export type ToolHandler<R> = (request: R) => ToolMessage | Command | Promise<ToolMessage | Command>;

/** The part of LangChain's model request the stop check reads. */
export interface ModelRequestLike {
  state?: Partial<GuardState>;
}

export type ModelHandler<R> = (request: R) => AIMessage | Command | Promise<AIMessage | Command>;

/** What the guard made of one batch: each call's decision, and the stop that ends the run, if any. */
interface Verdict {
  byId: Map<string, Decision>;
  stop: { reason: string } | undefined;
}

/**
 * A guard that judges each batch of tool calls as a whole, attached through the wrap hooks only
 * (docs/architecture.md, "Two kinds of guard"), so it costs no graph step:
 * - `wrapToolCall`: every call of a batch runs in its own task, sees the same state and so the
 *   same batch verdict (decided once per AIMessage); a refused call is answered with the guard's
 *   ToolMessage instead of running; a stop answers every call of the batch;
 * - `wrapModelCall`: after a batch this guard stopped, the run's final AIMessage is returned
 *   without calling the model, which ends the run with pairing intact.
 * A tool's exception still becomes an error ToolMessage, as it would without any wrapToolCall.
 * Calls the repair middleware's review found unusable are left to it: it explains them better.
 * Every answer also carries the history the guard judged (see carry.ts), so judgement survives a summary.
 */
export function batchGuard(settings: BatchGuardSettings) {
  // A cache, not state: keyed by the AIMessage, so a thread another process resumes decides again.
  const verdicts = new WeakMap<object, Promise<Verdict>>();

  const verdictOf = (messages: readonly BaseMessage[], at: number): Promise<Verdict> => {
    const asking = messages[at] as object;
    let verdict = verdicts.get(asking);
    if (!verdict) {
      const history = at === messages.length - 1 ? messages : messages.slice(0, at + 1);
      const unusable = settings.judgesUnusableCalls ? undefined : unusableCallIds(asking);
      const batch = unusable?.size ? toolCallsOf(asking).filter((call) => !unusable.has(call.id)) : toolCallsOf(asking);
      verdict = Promise.resolve()
        .then(() => settings.decide(history, batch))
        .then((decisions) => verdictFrom(decisions, settings));
      verdicts.set(asking, verdict);
    }
    return verdict;
  };

  const wrapToolCall = async <R extends ToolRequestLike>(request: R, handler: ToolHandler<R>): Promise<ToolMessage | Command> => {
    const id = request.toolCall.id;
    if (id === undefined) return runToolSafely(request, handler);
    return withCarry(request.state, id, await judged(request, handler, id));
  };

  /** The call's answer: the guard's, or the tool's when the guard lets it run. */
  const judged = async <R extends ToolRequestLike>(request: R, handler: ToolHandler<R>, id: string): Promise<ToolMessage | Command> => {
    const messages = historyOf(request.state);
    const at = lastAiIndex(messages);
    if (at < 0) return runToolSafely(request, handler);
    let verdict: Verdict;
    try {
      verdict = await verdictOf(messages, at);
    } catch (error) {
      await emitSignal({ guard: settings.guard, action: "warn", toolCallId: id, tool: request.toolCall.name, code: "guard_failed", reason: "guard_failed", detail: { error: String(error) } }, settings.onSignal);
      return runToolSafely(request, handler);
    }
    const call: ToolCallView = { id, name: request.toolCall.name, args: request.toolCall.args };
    const own = verdict.byId.get(id);
    if (own && own.action !== "allow") {
      const detail = settings.observeOnly ? { ...own.detail, observeOnly: true } : own.detail;
      await emitSignal({ guard: settings.guard, action: own.action, toolCallId: id, tool: call.name, code: own.code, reason: own.reason, detail }, settings.onSignal);
    }
    const outcome = callOutcome(own, verdict.stop, settings.observeOnly);
    if (outcome.kind === "runs") return runToolSafely(request, handler);
    if (outcome.kind === "refused") return guardToolMessage(call, settings.guard, "directive", outcome.own.message);
    if (settings.exitBehavior === "throw") throw new GuardStopError(settings.guard, outcome.reason, call.name, call.id);
    return guardToolMessage(call, settings.guard, "stop", outcome.own?.message ?? notRunText(settings.guard), outcome.reason);
  };

  const wrapModelCall = async <R extends ModelRequestLike>(request: R, handler: ModelHandler<R>): Promise<AIMessage | Command> => {
    const stop = stopMarkIn(request.state?.messages ?? [], settings.guard);
    return stop ? stopNotice(settings.guard, stop.reason) : handler(request);
  };

  return { wrapToolCall, wrapModelCall };
}

export type BatchGuardHooks = ReturnType<typeof batchGuard>;

function verdictFrom(decisions: readonly CallDecision[], mode: GuardMode): Verdict {
  const byId = new Map<string, Decision>();
  for (const { call, decision } of decisions) if (!byId.has(call.id)) byId.set(call.id, decision);
  return { byId, stop: batchStop(decisions, mode) };
}

function lastAiIndex(messages: readonly BaseMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messageKind(messages[i]) === "ai") return i;
  return -1;
}
