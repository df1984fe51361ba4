import type { BaseMessage } from "@langchain/core/messages";
import type { CallDecision } from "../core/decision.js";
import { isStampedTurn, reachedGuards } from "../core/marks.js";
import { messageKind, toolCallIdOf, toolCallsOf, type ToolCallView } from "../core/messages.js";
import type { GuardAction } from "../core/signals.js";
import { batchStop, refuses, type GuardMode } from "../core/verdict.js";

/** A loop guard as replay sees it: its name and the decision function its live hook calls. */
export interface ReplayGuard {
  readonly name: string;
  readonly evaluate: (messages: readonly BaseMessage[], pending: readonly ToolCallView[]) => Promise<CallDecision[]>;
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
 * to that message and the whole batch, exactly as its live `wrapToolCall` does. Wrap hooks nest
 * first middleware outermost, so a later guard only acts on the calls an earlier one let through,
 * and on none after a stop; its judgement of the others is still reported, marked `shadowedBy`. A recorded thread goes on past a call a guard would have refused: the
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
    const outside = answeredBeforeGuards(messages, i);
    for (const { guard, call, decision, shadowedBy } of await replayBatch(history, calls, stack, outside)) {
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
 */
async function replayBatch(
  history: readonly BaseMessage[],
  calls: ToolCallView[],
  stack: readonly StackedGuard[],
  answeredOutside: ReadonlySet<string>,
): Promise<BatchDecision[]> {
  const out: BatchDecision[] = [];
  const answeredBy = new Map<string, string>([...answeredOutside].map((id) => [id, ANOTHER_MIDDLEWARE]));
  let stoppedBy: string | undefined;
  for (const { guard, ...mode } of stack) {
    const decisions = await guard.evaluate(history, calls);
    // Live, a guard judges the whole batch once, at the first call that reaches it: its stop ends
    // the run even when the stopped call itself was answered by an outer guard. No call reaches
    // it after a stop, or when outer guards answered them all.
    const reached = calls.some((call) => !answeredBy.has(call.id));
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

/** Who answered a call that never reached the guards (a LangChain call limit, a reviewer's reject). */
const ANOTHER_MIDDLEWARE = "another middleware";

const NONE: ReadonlySet<string> = new Set();

/**
 * Calls of the batch asked at `at` that were answered before the tools node, where no guard met
 * them live (core/marks.ts `reachedGuards`): each guard's judgement of them is shadowed.
 */
function answeredBeforeGuards(messages: readonly BaseMessage[], at: number): ReadonlySet<string> {
  if (!isStampedTurn(messages[at])) return NONE;
  const ids = new Set<string>();
  for (let j = at + 1; j < messages.length && messageKind(messages[j]) === "tool"; j++) {
    const id = toolCallIdOf(messages[j]);
    if (id !== undefined && !reachedGuards(messages[j], true)) ids.add(id);
  }
  return ids;
}
