import type { BaseMessage } from "@langchain/core/messages";
import type { CallDecision, Decision } from "../core/decision.js";
import {
  answeredBeforeOf,
  isStampedTurn,
  markOf,
  reachedGuards,
  toolRan,
  withWouldBeRefusals,
  wouldBeRefusalsOf,
  type WouldBeRefusal,
} from "../core/marks.js";
import { fields, type Loose } from "../core/fields.js";
import { CHARS_PER_TOKEN } from "../core/tokens.js";
import { estimatedChars, usageOf } from "../guards/runaway/ledger.js";
import { isSummary, messageKind, toolCallIdOf, toolCallsOf, type ToolCallView } from "../core/messages.js";
import type { GuardAction } from "../core/signals.js";
import type { SignalCode } from "../core/signalCodes.js";
import { batchStop, judgedCalls, onReachingCall, refuses, stopsRun, type GuardMode } from "../core/verdict.js";
import { liveOrder, type OrderEvidence } from "./stackOrder.js";

/** A loop guard as replay sees it: its name and the decision functions its live hooks call. */
export interface ReplayGuard {
  readonly name: string;
  readonly evaluate: (messages: readonly BaseMessage[], pending: readonly ToolCallView[]) => Promise<CallDecision[]>;
  /**
   * For a guard that judges model turns (the runaway guard): its decision on a turn none of whose
   * calls it judged, which live it makes before the next model call, and on a run's start (a
   * stop only). Replay shows it on the turn's first call.
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
  /** The decision's signal code, e.g. `runaway_factor`. */
  code: SignalCode;
  /** The call it is on; absent for a stop at a run's start whose recorded run made no call (see `atRunStart`). */
  toolCallId?: string;
  tool?: string;
  reason: string;
  /** Position of the call among all tool calls of the thread, from 0 (of the next call, when there is none). */
  callIndex: number;
  /** Index of the AI message that made the call. */
  messageIndex: number;
  /**
   * A stop before the first model call of a run (the runaway guard's thread cap): the model call
   * at `messageIndex` is one the run would not have made, and the decision is on its first call.
   */
  atRunStart?: true;
  detail?: Record<string, unknown>;
  /**
   * Set when an outer guard had already answered the call (refused it, or stopped the run):
   * live, this guard would not have seen it. Replay shows it anyway, so every guard's judgement
   * of every call can be read; totals of what the stack did leave it out.
   */
  shadowedBy?: string;
  /**
   * Set when the stack had already stopped the run at an earlier model turn (the guard that
   * stopped it): live, the run ended there and this call was never made. Totals leave it out.
   */
  afterStop?: string;
}

/** Where a run of the thread would have stopped, and what the recorded run spent after it. */
export interface ReplayStop {
  /** The guard whose stop ends the run. */
  guard: string;
  reason: string;
  /** The stopped call; absent for a stop at a run's start whose recorded run made no call. */
  toolCallId?: string;
  tool?: string;
  /** Position of the stopped call among all tool calls of the thread, from 0 (of the next call, when there is none). */
  callIndex: number;
  /** Index of the AI message that made the call: at a run's start, the model call the run would not have made. */
  messageIndex: number;
  /** A stop before the run's first model call (see `ReplayedDecision.atRunStart`). */
  atRunStart?: true;
  /** Model calls the recorded run made after the stop, up to the next user message (the run's end). */
  modelCallsAfter: number;
  /** Tool calls the recorded run made after the stopped turn, up to the run's end. */
  toolCallsAfter: number;
  /** Tokens (input + output) of those model calls: their `usage_metadata`, else estimated at 4 characters a token. */
  tokensAfter: number;
  /** Where `tokensAfter` comes from: every call reported usage, or some were estimated. */
  tokenSource: "usage_metadata" | "estimate";
}

/** A call a guard of the stack answered live that the replay answers otherwise. */
export interface UnreproducedAnswer {
  toolCallId: string;
  tool: string;
  messageIndex: number;
  /** The guard whose mark is on the call's recorded answer. */
  live: string;
  /** The guard that answers it in the replay; absent when the replay lets the tool run. */
  replayed?: string;
}

export interface ReplayResult {
  toolCalls: number;
  decisions: ReplayedDecision[];
  /** The guards as replayed, outermost first: the stack's order, moved where `orderEvidence` says. */
  order: string[];
  /** Recorded answers that show the live stack had a guard outside one the given order puts before it. */
  orderEvidence: OrderEvidence[];
  /** Recorded answers the replay does not reproduce: the live stack, or its options, differed from the one replayed. */
  unreproduced: UnreproducedAnswer[];
  /** Each run of the thread (from one user message to the next) that the stack would have stopped, where it stops. */
  stops: ReplayStop[];
}

/** One model turn with tool calls, judged by every guard of the stack. */
export interface JudgedBatch {
  /** Index of the AI message that made the calls. */
  messageIndex: number;
  /** Position of the turn's first call among all tool calls of the thread. */
  firstCallIndex: number;
  /** Every call of the turn, those no guard judges included: a stop answers them too. */
  calls: readonly ToolCallView[];
  /** Each guard's decisions, by name: on the calls that reached it in the order judged, and on the whole batch for the others. */
  judgements: Map<string, CallDecision[]>;
  /** The calls the guards judge (the repair middleware answers the others). */
  judged: readonly ToolCallView[];
  /** Each turn-judging guard's decision on the turn as a whole, for when none of its calls reach it. */
  turnJudgements: Map<string, Decision>;
  /** The guard that answered a call in place of its tool live, by call id, read from the marks of the recorded answers. */
  answeredLive: ReadonlyMap<string, string>;
  /** Calls answered before the tools node (a call limit, a reviewer's reject): no guard met them live. */
  answeredBeforeGuards: ReadonlySet<string>;
  /**
   * Calls a middleware before the guards answered without running them after the guards had
   * judged the batch (core/marks.ts ANSWERED_BEFORE_KEY): they counted as calls of the batch,
   * but no guard met them.
   */
  answeredBesideGuards: ReadonlySet<string>;
  /**
   * The run's start, judged before its first model call (the AI message at `messageIndex`): live,
   * a turn-judging guard decides there whether the thread may go on at all (its thread cap).
   */
  atRunStart?: true;
}

/**
 * Replays a saved thread through a stack of loop guards (given in middleware order, as passed to
 * `createAgent`). At every AI message with tool calls, each guard's `evaluate` gets the history up
 * to that message and the batch it would judge live (calls the repair middleware found unusable
 * are left to it), exactly as its live `wrapToolCall` does.
 *
 * Wrap hooks nest first middleware outermost, so a later guard only judges and acts on the calls
 * an earlier one let through, and on none after a stop; its judgement of the others is still
 * reported, marked `shadowedBy`. The order is the stack's, except where the thread's recorded answers prove
 * the live stack had another (`liveOrder`): the guard a call's answer names was outside every
 * guard that would have answered it too.
 *
 * A recorded thread goes on past a call the replayed stack would have refused: the history is
 * judged as recorded. A call a live guard answered counts as not run (its mark says so), and
 * never reached the guards that would have answered it too (see `actOn`).
 */
export async function replayThread(
  messages: readonly BaseMessage[],
  stack: readonly StackedGuard[],
): Promise<ReplayResult> {
  const judged = await judgeBatches(messages, stack);
  const { order, evidence } = liveOrder(judged.batches, stack);
  // Each guard judged the calls that reached it in the stack's order: judged again in the live one.
  const { toolCalls, batches } = evidence.length > 0 ? await judgeBatches(messages, order) : judged;
  const replayed = new Set(order.map(({ guard }) => guard.name));
  const decisions: ReplayedDecision[] = [];
  const unreproduced: UnreproducedAnswer[] = [];
  const stops: ReplayStop[] = [];
  let stopped: ReplayStop | undefined;
  const sizes = new HistorySizes(messages);
  for (const batch of batches) {
    // A user message after the stop starts a new run.
    if (stopped && userMessageBetween(messages, stopped.messageIndex, batch.messageIndex)) stopped = undefined;
    const { acted, answers, stop } = actOn(batch, order, replayed);
    for (const decision of acted) decisions.push(replayedDecision(batch, decision, stopped?.guard));
    if (stopped) continue;
    if (batch.answeredLive.size > 0) unreproduced.push(...unreproducedAnswers(batch, answers, replayed));
    if (stop) stops.push((stopped = replayStop(messages, sizes, batch, stop)));
  }
  return {
    toolCalls,
    decisions,
    order: order.map(({ guard }) => guard.name),
    orderEvidence: evidence,
    unreproduced,
    stops,
  };
}

async function judgeBatches(
  messages: readonly BaseMessage[],
  stack: readonly StackedGuard[],
): Promise<{ toolCalls: number; batches: JudgedBatch[] }> {
  const batches: JudgedBatch[] = [];
  // The history so far, grown in place: the same message objects in the same array keep the
  // shared observation store incremental, as it is in a live run.
  const history: BaseMessage[] = [];
  const names = new Set(stack.map(({ guard }) => guard.name));
  let toolCalls = 0;
  // The refusals the replayed guards make of the latest turn's calls, by call id (made when the
  // first one is: most turns have none), and whether a guard saw that turn live.
  let refusals: Map<string, WouldBeRefusal[]> = NO_REFUSALS;
  let stamped = false;
  const turnGuards = stack.filter(({ guard }) => guard.evaluateTurn);
  let runStart = false;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const kind = messageKind(message);
    if (isUserMessage(message)) runStart = true;
    else if (kind === "ai" && runStart) {
      runStart = false;
      const start = await judgeRunStart(history, turnGuards, i, toolCalls, message);
      if (start) batches.push(start);
    }
    history.push(kind === "tool" ? asJudged(message, refusals, names, stamped) : message);
    if (kind !== "ai") continue;
    const calls = toolCallsOf(message);
    if (calls.length === 0) continue;
    const judged = judgedCalls(message);
    const judgements = new Map<string, CallDecision[]>();
    const turnJudgements = new Map<string, Decision>();
    refusals = NO_REFUSALS;
    stamped = isStampedTurn(message);
    const answered = recordedAnswers(messages, i, calls);
    // The calls answered on their way to the guard judging: before the tools node, then by the guards before it.
    let answeredBefore = answered.answeredBeforeGuards;
    let acted = false;
    // Live, a turn none of whose calls reached a guard is judged at the next model call: there is
    // none when the run ended with the turn's answers (a call limit's blocks end it).
    const judgedAtNextCall = turnGuards.length > 0 && modelCallFollows(messages, i);
    for (const { guard, ...mode } of stack) {
      const decisions = await judgeReaching(guard, history, judged, answeredBefore);
      judgements.set(guard.name, decisions);
      if (guard.evaluateTurn && judgedAtNextCall) {
        const turn = await guard.evaluateTurn(history);
        turnJudgements.set(guard.name, turn);
        if (turn.action !== "allow") acted = true;
      }
      // As live, a stop on a call that reached the guard answers the whole batch: no call goes on inside it.
      const missed = answeredBefore;
      const stops = decisions.some(({ call, decision }) => !missed.has(call.id) && stopsRun(decision, mode));
      for (const { call, decision } of decisions) {
        if (decision.action !== "allow") acted = true;
        if (!refuses(decision, false)) continue;
        if (refusals === NO_REFUSALS) refusals = new Map();
        refusals.set(call.id, [...(refusals.get(call.id) ?? []), { guard: guard.name, action: decision.action }]);
        if (!stops && !missed.has(call.id) && refuses(decision, mode.observeOnly))
          answeredBefore = new Set(answeredBefore).add(call.id);
      }
    }
    // A turn every guard allows, which no guard answered live, changes nothing the replay
    // reports: it is not kept, so a long thread's turns do not all stay in memory to the end.
    if (acted || answered.answeredLive.size > 0)
      batches.push({
        messageIndex: i,
        firstCallIndex: toolCalls,
        calls,
        judgements,
        judged,
        turnJudgements,
        ...answered,
      });
    toolCalls += calls.length;
  }
  return { toolCalls, batches };
}

const NO_REFUSALS: Map<string, WouldBeRefusal[]> = new Map();

/** Whether the run made a model call after the answers to the turn at `at`. */
function modelCallFollows(messages: readonly BaseMessage[], at: number): boolean {
  let next = at + 1;
  while (next < messages.length && messageKind(messages[next]) === "tool") next++;
  return messageKind(messages[next]) === "ai";
}

/**
 * A guard's decisions on a batch, as live (hooks/batchGuard.ts `verdictOf`): it decides on the
 * calls that reach it, and a sibling answered on the way is no earlier call of the batch for it.
 * Its judgement of a call that did not reach it (reported shadowed) is the one it makes of the
 * whole batch.
 */
async function judgeReaching(
  guard: ReplayGuard,
  history: readonly BaseMessage[],
  judged: readonly ToolCallView[],
  answeredBefore: ReadonlySet<string>,
): Promise<CallDecision[]> {
  const whole = await guard.evaluate(history, judged);
  if (answeredBefore.size === 0) return whole;
  const reaching = judged.filter((call) => !answeredBefore.has(call.id));
  if (reaching.length === judged.length || reaching.length === 0) return whole;
  const own = new Map((await guard.evaluate(history, reaching)).map((d) => [d.call.id, d]));
  return whole.map((d) => own.get(d.call.id) ?? d);
}

/**
 * The start of a run, as a turn-judging guard judges it live before the run's first model call
 * (`aiIndex`, with `history` the messages before it): only a stop is decided there. Undefined
 * when every guard lets the run go on.
 */
async function judgeRunStart(
  history: readonly BaseMessage[],
  turnGuards: readonly StackedGuard[],
  aiIndex: number,
  firstCallIndex: number,
  firstModelCall: BaseMessage,
): Promise<JudgedBatch | undefined> {
  const turnJudgements = new Map<string, Decision>();
  for (const { guard } of turnGuards) {
    const turn = await guard.evaluateTurn!(history);
    if (turn.action === "stop") turnJudgements.set(guard.name, turn);
  }
  if (turnJudgements.size === 0) return undefined;
  return {
    messageIndex: aiIndex,
    firstCallIndex,
    calls: toolCallsOf(firstModelCall),
    judgements: new Map(),
    judged: [],
    turnJudgements,
    answeredLive: NO_ANSWERS,
    answeredBeforeGuards: NO_IDS,
    answeredBesideGuards: NO_IDS,
    atRunStart: true,
  };
}

/**
 * A recorded answer as the replayed guards read it. A call a guard would have refused, but
 * which ran in the recording (no guard, an observe-only one, or other settings), carries that
 * guard's would-be refusal, as an observe-only guard writes it live (core/marks.ts
 * WOULD_REFUSE_KEY): the recorded model repeating the call is the model ignoring the refusal,
 * so the guard escalates as it would have live. The first would-be refusal is exact; its stop
 * is where a live guard stops a model that repeats. The refusals recorded for the replayed
 * guards are replaced by the replay's own; the message is copied only when they differ.
 */
function asJudged(
  message: BaseMessage,
  refusals: ReadonlyMap<string, WouldBeRefusal[]>,
  replayed: ReadonlySet<string>,
  stamped: boolean,
): BaseMessage {
  const recorded = wouldBeRefusalsOf(message);
  // The usual answer: no refusal recorded, none made by the replay.
  if (recorded.length === 0 && refusals.size === 0) return message;
  const id = toolCallIdOf(message);
  const own = id !== undefined && toolRan(message, stamped) ? (refusals.get(id) ?? []) : [];
  const wanted = [...recorded.filter((r) => !replayed.has(r.guard)), ...own];
  if (sameRefusals(recorded, wanted)) return message;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(message) as object) as BaseMessage, message);
  (copy as { response_metadata: Loose }).response_metadata = withWouldBeRefusals(
    fields(message).response_metadata as Loose | undefined,
    wanted,
  );
  return copy;
}

function sameRefusals(a: readonly WouldBeRefusal[], b: readonly WouldBeRefusal[]): boolean {
  return a.length === b.length && a.every((r, k) => r.guard === b[k]!.guard && r.action === b[k]!.action);
}

/**
 * What the recorded answers of the turn at `at` say about who answered its calls in place of
 * their tools: a guard (its mark names it), or, in a turn a guard stamped, something before the
 * tools node, where no guard met the call (core/marks.ts `reachedGuards`).
 */
function recordedAnswers(
  messages: readonly BaseMessage[],
  at: number,
  calls: readonly ToolCallView[],
): Pick<JudgedBatch, "answeredLive" | "answeredBeforeGuards" | "answeredBesideGuards"> {
  const stamped = isStampedTurn(messages[at]);
  // Made when the first answer needs them: most turns have none.
  let answeredLive: Map<string, string> | undefined;
  let unmet: string[] | undefined;
  let end = at + 1;
  for (; end < messages.length && messageKind(messages[end]) !== "ai"; end++) {
    const id = toolCallIdOf(messages[end]);
    if (id === undefined || !callsInclude(calls, id) || messageKind(messages[end]) !== "tool") continue;
    const mark = markOf(messages[end]);
    if (mark) (answeredLive ??= new Map()).set(id, mark.guard);
    else if (!reachedGuards(messages[end], stamped)) (unmet ??= []).push(id);
  }
  const answers = {
    answeredLive: answeredLive ?? NO_ANSWERS,
    answeredBeforeGuards: NO_IDS,
    answeredBesideGuards: NO_IDS,
  };
  if (!unmet) return answers;
  // Without the guards' record (a lone call, older versions), every such answer was written before the tools node.
  let judgedWith: readonly string[] | undefined;
  for (let i = at + 1; i < end && !judgedWith; i++) judgedWith = answeredBeforeOf(messages[i]);
  const before = judgedWith ? unmet.filter((id) => judgedWith.includes(id)) : unmet;
  if (before.length > 0) answers.answeredBeforeGuards = new Set(before);
  if (before.length < unmet.length) answers.answeredBesideGuards = new Set(unmet.filter((id) => !before.includes(id)));
  return answers;
}

function callsInclude(calls: readonly ToolCallView[], id: string): boolean {
  for (const call of calls) if (call.id === id) return true;
  return false;
}

const NO_ANSWERS: ReadonlyMap<string, string> = new Map();
const NO_IDS: ReadonlySet<string> = new Set();

type NonAllow = Exclude<CallDecision["decision"], { action: "allow" }>;

interface BatchDecision {
  guard: string;
  /** Absent for a stop at a run's start that the recorded run made no call after. */
  call: ToolCallView | undefined;
  decision: NonAllow;
  shadowedBy?: string;
}

/**
 * What the stack, in `order`, does with one batch: every guard's non-allow decisions, outermost
 * guard first (a guard inside one that answered a call, or stopped the run, still judges it,
 * marked `shadowedBy` that guard), and the guard that answers each call the tool does not.
 *
 * A call that a guard outside the replayed stack answered live (its mark names it) never reached
 * a guard of the stack that would have answered it too, or stopped its batch: had it reached
 * one, that guard's mark would be on the answer. Such a guard's decisions on the call are
 * shadowed by the one that answered it. Where the stack's guard only warns, the thread cannot
 * tell whether the call reached it, and its warning stands.
 */
function actOn(
  batch: JudgedBatch,
  order: readonly StackedGuard[],
  replayed: ReadonlySet<string>,
): { acted: BatchDecision[]; answers: Map<string, string>; stop?: BatchDecision } {
  const acted: BatchDecision[] = [];
  const answers = new Map<string, string>();
  for (const id of batch.answeredBeforeGuards) answers.set(id, ANOTHER_MIDDLEWARE);
  for (const id of batch.answeredBesideGuards) answers.set(id, ANOTHER_MIDDLEWARE);
  const outside = answeredOutside(batch, replayed);
  const open = (call: ToolCallView) => !answers.has(call.id) && !outside.has(call.id);
  let stoppedBy: string | undefined;
  let stop: BatchDecision | undefined;
  for (const { guard, ...mode } of order) {
    // As live: a turn none of whose judged calls reach a turn-judging guard is judged as a whole.
    // A call a guard outside the replay answered may have reached it (that guard may be inside
    // it, as all but the policy guard are inside the runaway guard): as for a warning, it did.
    const turn = batch.turnJudgements.get(guard.name);
    if (turn && !batch.judged.some((call) => !answers.has(call.id))) {
      if (turn.action !== "allow")
        acted.push({
          guard: guard.name,
          call: batch.calls[0],
          decision: turn,
          ...(stoppedBy ? { shadowedBy: stoppedBy } : {}),
        });
      if (!stoppedBy && stopsRun(turn, mode)) {
        stoppedBy = guard.name;
        stop = { guard: guard.name, call: batch.calls[0], decision: turn };
        for (const call of batch.calls) if (!answers.has(call.id)) answers.set(call.id, guard.name);
      }
      continue;
    }
    // Live, a guard judges the whole batch once, at the first call that reaches it. Its stop rides
    // only on a call that reaches it (batchGuard.ts); one about the turn (the runaway guard's)
    // moves there. No call reaches it after a stop, or when outer guards answered them all.
    const judged = batch.judgements.get(guard.name);
    if (!judged) continue; // a run's start: only turn-judging guards judge it
    const decisions = guard.evaluateTurn
      ? onReachingCall(judged, open)
      : batch.answeredBesideGuards.size === 0
        ? judged
        : onReachingCall(judged, open, (call) => open(call) || batch.answeredBesideGuards.has(call.id));
    const reaching = guard.evaluateTurn ? decisions : decisions.filter(({ call }) => open(call));
    const stopping = batchStop(reaching, mode) !== undefined;
    const stops = stopping && !stoppedBy && batch.calls.some(open);
    for (const { call, decision } of decisions) {
      if (decision.action === "allow") continue;
      const answersToo = stopping || refuses(decision, mode.observeOnly);
      // A call's own refusal and the stop it carries (`onReachingCall`) are both this guard's.
      const answeredBy = answers.get(call.id);
      const shadowedBy =
        stoppedBy ??
        (answeredBy === guard.name ? undefined : answeredBy) ??
        (answersToo ? outside.get(call.id) : undefined);
      acted.push({ guard: guard.name, call, decision, ...(shadowedBy ? { shadowedBy } : {}) });
      // A call waiting for a reviewer that this guard answered live: the reviewer said no (or
      // could not be read), and no guard inside met the call.
      const reviewerRefused = decision.code === "policy_ask" && batch.answeredLive.get(call.id) === guard.name;
      if (!shadowedBy && (refuses(decision, mode.observeOnly) || reviewerRefused)) answers.set(call.id, guard.name);
    }
    // A stop answers every call still open: live, no guard inside this one sees the batch.
    if (stops) {
      stoppedBy = guard.name;
      const first = reaching.find(({ decision }) => stopsRun(decision, mode))!;
      stop = { guard: guard.name, call: first.call, decision: first.decision as NonAllow };
      for (const call of batch.calls) if (!answers.has(call.id)) answers.set(call.id, guard.name);
    }
  }
  return { acted, answers, ...(stop ? { stop } : {}) };
}

/** Who answered a call that never reached the guards (a LangChain call limit, a reviewer's reject). */
const ANOTHER_MIDDLEWARE = "another middleware";

/** The recorded answers of guards the replay leaves out, by call id. */
function answeredOutside(batch: JudgedBatch, replayed: ReadonlySet<string>): ReadonlyMap<string, string> {
  if (batch.answeredLive.size === 0) return NO_ANSWERS;
  return new Map([...batch.answeredLive].filter(([, guard]) => !replayed.has(guard)));
}

function replayedDecision(
  batch: JudgedBatch,
  { guard, call, decision, shadowedBy }: BatchDecision,
  afterStop: string | undefined,
): ReplayedDecision {
  return {
    guard,
    action: decision.action,
    code: decision.code,
    ...callOf(batch, call),
    reason: decision.reason,
    ...(decision.detail ? { detail: decision.detail } : {}),
    ...(shadowedBy ? { shadowedBy } : {}),
    ...(afterStop ? { afterStop } : {}),
  };
}

/**
 * The estimated characters of a thread's history up to each message, summed once, at the first
 * stop (most threads have none): every stop reads its context from them, so a thread with many
 * stopped runs is not summed again from its start at each one.
 */
class HistorySizes {
  private sums: number[] | undefined;

  constructor(private readonly messages: readonly BaseMessage[]) {}

  /** Estimated characters of `messages[0..end]`. */
  through(end: number): number {
    if (!this.sums) {
      let total = 0;
      this.sums = this.messages.map((message) => (total += estimatedChars(message)));
    }
    return this.sums[end] ?? 0;
  }
}

function callIndexOf(batch: JudgedBatch, call: ToolCallView): number {
  return (
    batch.firstCallIndex +
    Math.max(
      0,
      batch.calls.findIndex((c) => c.id === call.id),
    )
  );
}

function userMessageBetween(messages: readonly BaseMessage[], from: number, to: number): boolean {
  for (let i = from + 1; i < to; i++) if (isUserMessage(messages[i])) return true;
  return false;
}

/** A message that starts a run: the user's, not a summary (LangChain writes those as human messages too). */
function isUserMessage(message: BaseMessage | undefined): boolean {
  return messageKind(message) === "human" && !isSummary(message);
}

/** Where a decision is: its call, and the model turn that made it (or would have, at a run's start). */
function callOf(
  batch: JudgedBatch,
  call: ToolCallView | undefined,
): Pick<ReplayedDecision, "toolCallId" | "tool" | "callIndex" | "messageIndex" | "atRunStart"> {
  return {
    ...(call ? { toolCallId: call.id, tool: call.name } : {}),
    callIndex: call ? callIndexOf(batch, call) : batch.firstCallIndex,
    messageIndex: batch.messageIndex,
    ...(batch.atRunStart ? { atRunStart: true as const } : {}),
  };
}

/**
 * The stop of `batch` with what the recorded run spent after it: every model call after the
 * stopped turn (from the run's first, for a stop at its start), up to the next user message,
 * which a live stop would have saved.
 */
function replayStop(
  messages: readonly BaseMessage[],
  sizes: HistorySizes,
  batch: JudgedBatch,
  { guard, call, decision }: BatchDecision,
): ReplayStop {
  const from = batch.atRunStart ? batch.messageIndex : batch.messageIndex + 1;
  let context = sizes.through(from - 1);
  let modelCallsAfter = 0;
  let toolCallsAfter = 0;
  let tokensAfter = 0;
  let estimated = false;
  for (let i = from; i < messages.length; i++) {
    const message = messages[i];
    if (isUserMessage(message)) break;
    const kind = messageKind(message);
    const chars = estimatedChars(message);
    // A guard's own final message (a live stop's) is no model call.
    if (kind === "ai" && markOf(message) === undefined) {
      modelCallsAfter++;
      toolCallsAfter += toolCallsOf(message).length;
      const usage = usageOf(message);
      if (usage) tokensAfter += usage.total;
      else {
        estimated = true;
        tokensAfter += Math.round((context + chars) / CHARS_PER_TOKEN);
      }
    }
    context += chars;
  }
  return {
    guard,
    reason: decision.reason,
    ...callOf(batch, call),
    modelCallsAfter,
    toolCallsAfter,
    tokensAfter,
    tokenSource: estimated ? "estimate" : "usage_metadata",
  };
}

/** The recorded answers of guards in the stack that the replay gives otherwise (guards outside the stack cannot be checked). */
function unreproducedAnswers(
  batch: JudgedBatch,
  answers: ReadonlyMap<string, string>,
  replayed: ReadonlySet<string>,
): UnreproducedAnswer[] {
  const out: UnreproducedAnswer[] = [];
  for (const [toolCallId, live] of batch.answeredLive) {
    const replayedBy = answers.get(toolCallId);
    if (!replayed.has(live) || replayedBy === live) continue;
    const tool = batch.calls.find((call) => call.id === toolCallId)!.name;
    out.push({
      toolCallId,
      tool,
      messageIndex: batch.messageIndex,
      live,
      ...(replayedBy ? { replayed: replayedBy } : {}),
    });
  }
  return out;
}
