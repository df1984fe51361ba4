import type { BaseMessage } from "@langchain/core/messages";
import type { CallDecision, Decision } from "../core/decision.js";
import { messageKind, toolCallsOf, type ToolCallView } from "../core/messages.js";
import type { GuardAction } from "../core/signals.js";
import { batchStop, callsJudged, refuses, stopsRun, type GuardMode } from "../core/verdict.js";

/** A loop guard as replay sees it: its name and the decision functions its live hooks call. */
export interface ReplayGuard {
  readonly name: string;
  readonly evaluate: (messages: readonly BaseMessage[], pending: readonly ToolCallView[]) => Promise<CallDecision[]>;
  /**
   * For a guard that judges model turns (the runaway guard): its decision on a turn none of whose
   * calls it judged, which live it makes before the next model call. Replay shows it on the
   * turn's first call.
   */
  readonly evaluateTurn?: (messages: readonly BaseMessage[]) => Promise<Decision>;
}

/** A guard in a middleware stack, with the two settings that change what later guards see. */
export interface StackedGuard extends GuardMode {
  guard: ReplayGuard;
}

/** A decision other than allow, as the live middleware would have signalled it. */
export interface ReplayedDecision {
  guard: string;
  action: GuardAction;
  toolCallId: string;
  tool: string;
  reason: string;
  /** Position of the call among all tool calls of the thread, from 0. */
  callIndex: number;
  /** Index of the AI message that made the call. */
  messageIndex: number;
  detail?: Record<string, unknown>;
  /**
   * Set when an outer guard had already answered the call (refused it, or stopped the run):
   * live, this guard would not have seen it. Replay shows it anyway, so every guard's judgement
   * of every call can be read; totals of what the stack did leave it out.
   */
  shadowedBy?: string;
}

export interface ReplayResult {
  toolCalls: number;
  decisions: ReplayedDecision[];
}

/**
 * Replays a saved thread through a stack of loop guards (given in middleware order, as passed to
 * `createAgent`). At every AI message with tool calls, each guard's `evaluate` gets the history up
 * to that message and the batch, exactly as its live `wrapToolCall` does (see `replayBatch`).
 * Wrap hooks nest first middleware outermost, so a later guard only acts on the calls an earlier
 * one let through, and on none after a stop; its judgement of the others is still reported,
 * marked `shadowedBy`. A recorded thread goes on past a call a guard would have refused: the
 * call really ran, and replay keeps judging the history as recorded.
 */
export async function replayThread(messages: readonly BaseMessage[], stack: readonly StackedGuard[]): Promise<ReplayResult> {
  const decisions: ReplayedDecision[] = [];
  // The history so far, grown in place: the same message objects in the same array keep the
  // shared observation store incremental, as it is in a live run.
  const history: BaseMessage[] = [];
  let toolCalls = 0;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    history.push(message);
    if (messageKind(message) !== "ai") continue;
    const calls = toolCallsOf(message);
    if (calls.length === 0) continue;
    const firstCallIndex = toolCalls;
    toolCalls += calls.length;
    const position = new Map(calls.map((call, k) => [call.id, firstCallIndex + k]));
    for (const { guard, call, decision, shadowedBy } of await replayBatch(history, message, stack)) {
      decisions.push({
        guard,
        action: decision.action,
        toolCallId: call.id,
        tool: call.name,
        reason: decision.reason,
        callIndex: position.get(call.id) ?? firstCallIndex,
        messageIndex: i,
        ...(decision.detail ? { detail: decision.detail } : {}),
        ...(shadowedBy ? { shadowedBy } : {}),
      });
    }
  }
  return { toolCalls, decisions };
}

type NonAllow = Exclude<CallDecision["decision"], { action: "allow" }>;

interface BatchDecision {
  guard: string;
  call: ToolCallView;
  decision: NonAllow;
  shadowedBy?: string;
}

/**
 * The non-allow decisions of every guard on one batch, outermost guard first. A guard inside one
 * that answered a call (or stopped the run) still judges it, marked `shadowedBy` that guard.
 * As live, each guard judges the calls the repair guard's review found usable (it answers the
 * others), and a guard that judges turns judges as a whole a turn none of whose calls it judged.
 */
async function replayBatch(history: readonly BaseMessage[], asking: BaseMessage, stack: readonly StackedGuard[]): Promise<BatchDecision[]> {
  const out: BatchDecision[] = [];
  const calls = toolCallsOf(asking);
  const judged = callsJudged(asking);
  const answeredBy = new Map<string, string>();
  let stoppedBy: string | undefined;
  for (const { guard, ...mode } of stack) {
    // Live, a guard judges the whole batch once, at the first call that reaches it: its stop ends
    // the run even when the stopped call itself was answered by an outer guard. No call reaches
    // it after a stop, or when outer guards answered them all.
    const reached = calls.some((call) => !answeredBy.has(call.id));
    if (guard.evaluateTurn && !(reached && judged.length > 0)) {
      const decision = await guard.evaluateTurn(history);
      if (decision.action !== "allow") out.push({ guard: guard.name, call: calls[0]!, decision, ...(stoppedBy ? { shadowedBy: stoppedBy } : {}) });
      if (!stoppedBy && stopsRun(decision, mode)) stoppedBy = guard.name;
      continue;
    }
    const decisions = await guard.evaluate(history, judged);
    const stops = !stoppedBy && reached && batchStop(decisions, mode) !== undefined;
    for (const { call, decision } of decisions) {
      if (decision.action === "allow") continue;
      const shadowedBy = stoppedBy ?? answeredBy.get(call.id);
      out.push({ guard: guard.name, call, decision, ...(shadowedBy ? { shadowedBy } : {}) });
      if (!shadowedBy && refuses(decision, mode.observeOnly)) answeredBy.set(call.id, guard.name);
    }
    // A stop answers every call still open: live, no guard inside this one sees the batch.
    if (stops) stoppedBy = guard.name;
  }
  return out;
}
