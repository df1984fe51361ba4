import { fields, type Loose } from "./fields.js";
import { contentOf, messageKind, statusOf, toolCallIdOf } from "./messages.js";
import type { SignalCode } from "./signalCodes.js";

/**
 * The one definition of what harness-kit writes into messages. Every message a guard writes or
 * rewrites carries a mark in `response_metadata.harness_kit`, and the decisions, replay and
 * `harness-kit inspect` read history through these functions only, so a thread written by one
 * version reads back with the same decisions.
 *
 * Version 1 fields: `v`, `guard`, `action`, and as the guard needs: `reason`, `stopReason` (a
 * stop; a stopped batch's answers also `stopOn`, `stopCode`, `stopDetail`: see `StopFacts`),
 * `outcome` (see below), `errorClass`/`mode` (the validator), `original` (the result a preview
 * replaced), `budget`, `detected`. Marks written before `v` existed read as version 1.
 *
 * `outcome` tells a tool that ran from a call a guard answered in its place:
 * - `"invalid_output"`: the tool ran and the validator found its output invalid;
 * - `"replaced_result"`: the tool ran and its result could not be shown (binary, unserialisable);
 * - `"blocked"`, or none on a directive/stop mark: the call did not run.
 */

export const MARK_KEY = "harness_kit";
/** The key of the repair middleware's review of a model turn, on the AIMessage. */
export const REVIEW_KEY = "harness_kit_review";
export const MARK_VERSION = 1;
/**
 * On a ToolMessage that passed a guard's `wrapToolCall`: whether the tool really ran (the wrapper
 * nearest the tool can tell, core/ranStamps.ts).
 */
export const RAN_KEY = "harness_kit_ran";
/** On an AIMessage: a guard saw this turn, so each of its answers says by RAN_KEY whether the tool ran. */
export const STAMPED_KEY = "harness_kit_stamped";

/**
 * On a ToolMessage of a call that ran: the guards that would have refused it (a directive or a
 * stop) but let it run, because they only observe or because replay judges a recorded thread
 * (`[{guard, action}]`). For that guard's own escalation the call counts as a refusal the model
 * then ignored by repeating it; for every other guard, and the observation store, it is a call
 * that ran with its real result.
 */
export const WOULD_REFUSE_KEY = "harness_kit_would_refuse";

/**
 * On one answer of a parallel batch the guards judged: the ids of the batch's calls that were
 * already answered when they judged it (written before the tools node: a call limit's block, a
 * reviewer's reject). A sibling answered later without running, by a middleware listed before
 * the guards, was still on its way when they judged the batch, so it counted as one of its calls;
 * replay tells the two apart by this list.
 */
export const ANSWERED_BEFORE_KEY = "harness_kit_answered_before";

/** The list `ANSWERED_BEFORE_KEY` holds on an answer, if any. */
export function answeredBeforeOf(message: unknown): readonly string[] | undefined {
  const ids = fields(fields(message).response_metadata)[ANSWERED_BEFORE_KEY];
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : undefined;
}

/** The tool ran; its result was replaced because it could not be shown as it was. */
export const REPLACED_RESULT = "replaced_result";
/** The tool ran; the validator found its output invalid. */
const INVALID_OUTPUT = "invalid_output";

export type MarkAction = "warn" | "directive" | "stop";

export interface Mark {
  v?: number;
  guard: string;
  action: MarkAction;
  reason?: string;
  [field: string]: unknown;
}

/** `response_metadata` with `mark` (stamped with this version) in place of any earlier mark. */
export function withMark(responseMetadata: Loose | undefined, mark: Mark): Loose {
  return { ...responseMetadata, [MARK_KEY]: { ...mark, v: MARK_VERSION } };
}

/** The mark on a message, whatever its action; instances and plain dicts alike. */
export function readMark(message: unknown): Mark | undefined {
  const mark = fields(fields(fields(message).response_metadata)[MARK_KEY]);
  return typeof mark.guard === "string" &&
    (mark.action === "warn" || mark.action === "directive" || mark.action === "stop")
    ? (mark as Mark)
    : undefined;
}

/** The guard that answered in place of the tool or the model (a directive or stop mark). */
export interface HarnessMark {
  guard: string;
  action: "directive" | "stop";
}

/** Whether the tool behind a marked result really ran (see `outcome`). */
function ranBehindMark(mark: Mark): boolean {
  return mark.outcome === INVALID_OUTPUT || mark.outcome === REPLACED_RESULT;
}

/**
 * Who answered a message in place of the tool or the model. A tool that ran is not "answered",
 * even when a guard replaced or judged its result: every guard counts it as a result.
 */
export function markOf(message: unknown): HarnessMark | undefined {
  const mark = readMark(message);
  if (!mark || mark.action === "warn" || ranBehindMark(mark)) return undefined;
  return { guard: mark.guard, action: mark.action };
}

/** Whether an answer carries the stamp of a tool that ran. */
export function ranStampOf(message: unknown): boolean {
  return fields(fields(message).response_metadata)[RAN_KEY] === true;
}

/** Whether an answer carries a run stamp at all: it passed a guard's `wrapToolCall`. */
export function hasRanStamp(message: unknown): boolean {
  return typeof fields(fields(message).response_metadata)[RAN_KEY] === "boolean";
}

/**
 * Whether the guards met the call `answer` answers: in a turn a guard saw, an error answer with
 * neither a run stamp nor a guard's mark was written before the tools node (LangChain's call
 * limit, a human-in-the-loop reject: both answer with status "error"), where no `wrapToolCall`
 * runs. Any other answer without a stamp is a result another middleware rewrote after the tools
 * ran (`piiMiddleware` redacting it rebuilds the message without its metadata).
 */
export function reachedGuards(answer: unknown, stampedTurn: boolean): boolean {
  if (isCancellation(answer)) return false;
  return !stampedTurn || hasRanStamp(answer) || readMark(answer) !== undefined || statusOf(answer) !== "error";
}

/**
 * Whether `answer` is deepagents' answer to a call left unanswered when a new message came in
 * (its patchToolCalls middleware writes it, with no status, in any thread): the call never ran.
 */
function isCancellation(answer: unknown): boolean {
  const content = contentOf(answer);
  return (
    typeof content === "string" &&
    content.endsWith(CANCELLED) &&
    content === `Tool call ${String(fields(answer).name)} with id ${toolCallIdOf(answer)}${CANCELLED}`
  );
}

const CANCELLED = " was cancelled - another message came in before it could be completed.";

/** Whether a guard saw this AI turn, so that its answers without RAN_KEY did not run. */
export function isStampedTurn(aiMessage: unknown): boolean {
  return fields(fields(aiMessage).response_metadata)[STAMPED_KEY] === true;
}

/**
 * Whether the tool behind `answer` ran. In a turn a guard saw, what ran is stamped, and the
 * answers of guards (marked), of LangChain's refusals and reviewers (errors written before the
 * tools node, `reachedGuards`) did not run. A thread no guard saw (older versions, other
 * frameworks) tells a refusal only by our own marks.
 */
export function toolRan(answer: unknown, stampedTurn: boolean): boolean {
  if (ranStampOf(answer)) return true;
  if (hasRanStamp(answer) || markOf(answer) !== undefined) return false;
  return reachedGuards(answer, stampedTurn);
}

/** What the observation store reads from one answer: whether the tool ran, and what the marks say. */
export interface AnswerFacts {
  ran: boolean;
  /** Set when the tool did not run and a guard answered in its place (`markOf`). */
  answeredBy: HarnessMark | undefined;
  /** For a tool that ran: the guards that would have refused it (`wouldBeRefusalsOf`); else none. */
  wouldRefuse: readonly WouldBeRefusal[];
  original: OriginalResult | undefined;
}

/** Whether an answer is stamped as run and holds neither a mark nor would-be refusals: a plain result. */
export function ranUnmarked(answer: unknown): boolean {
  const metadata = fields(fields(answer).response_metadata);
  return metadata[RAN_KEY] === true && metadata[MARK_KEY] === undefined && metadata[WOULD_REFUSE_KEY] === undefined;
}

/**
 * `toolRan`, `markOf`, `wouldBeRefusalsOf` and `originalOf` of one answer, read together. An
 * answer stamped as run that holds neither a mark nor would-be refusals (nearly every result)
 * is answered from that one look at its metadata: a run stamp makes `toolRan` true, no mark means
 * no `original`, and no refusal list means none.
 */
export function answerFacts(answer: unknown, stampedTurn: boolean): AnswerFacts {
  if (ranUnmarked(answer)) return RAN_UNMARKED;
  const ran = toolRan(answer, stampedTurn);
  return {
    ran,
    answeredBy: ran ? undefined : markOf(answer),
    wouldRefuse: ran ? wouldBeRefusalsOf(answer) : [],
    original: originalOf(answer),
  };
}

const RAN_UNMARKED: AnswerFacts = Object.freeze({
  ran: true,
  answeredBy: undefined,
  wouldRefuse: Object.freeze([]),
  original: undefined,
});

/** What a middleware that replaced a result (e.g. with a preview) recorded about the original. */
export interface OriginalResult {
  fingerprint: string;
  size: number;
  /** The key the budget stored the original under, when it did. */
  offloadKey?: string;
  /** How to read it back with the agent's own tools, as the store worded it (deepagents' `read_file`). */
  readHint?: string;
}

export function originalOf(message: unknown): OriginalResult | undefined {
  const original = fields(fields(fields(fields(message).response_metadata)[MARK_KEY]).original);
  if (typeof original.fingerprint !== "string" || typeof original.size !== "number") return undefined;
  const result: OriginalResult = { fingerprint: original.fingerprint, size: original.size };
  if (typeof original.offloadKey === "string") result.offloadKey = original.offloadKey;
  if (typeof original.readHint === "string") result.readHint = original.readHint;
  return result;
}

/** What the answers of a batch a guard stopped record about the stop: the signal it was, and where. */
export interface StopFacts {
  reason: string;
  /** The call the stop was decided on. */
  on: string;
  code: SignalCode;
  detail?: Record<string, unknown>;
}

/** The stop facts on a stop answer `guard` wrote (undefined for answers older versions wrote). */
export function stopFactsOf(message: unknown, guard: string): StopFacts | undefined {
  const mark = readMark(message);
  if (mark?.guard !== guard || mark.action !== "stop") return undefined;
  const { stopReason: reason, stopOn: on, stopCode: code, stopDetail: detail } = mark;
  if (typeof reason !== "string" || typeof on !== "string" || typeof code !== "string") return undefined;
  return {
    reason,
    on,
    code: code as SignalCode,
    ...(detail !== null && typeof detail === "object" ? { detail: detail as Record<string, unknown> } : {}),
  };
}

/**
 * The stop `guard` wrote into the answers of the latest batch (the ToolMessages after the last
 * AIMessage), if it stopped the run there.
 */
export function stopMarkIn(messages: readonly unknown[], guard: string): { reason: string } | undefined {
  for (let i = messages.length - 1; i >= 0 && messageKind(messages[i]) === "tool"; i--) {
    const mark = readMark(messages[i]);
    if (mark?.guard === guard && mark.action === "stop")
      return { reason: typeof mark.stopReason === "string" ? mark.stopReason : (mark.reason ?? "stopped") };
  }
  return undefined;
}

/**
 * Ids of the calls of a model turn that the repair middleware's review found unusable (a tool
 * that does not exist, arguments it could not repair): the repair middleware answers them.
 */
export function unusableCallIds(aiMessage: unknown): ReadonlySet<string> {
  const reviews = fields(fields(aiMessage).response_metadata)[REVIEW_KEY];
  if (!Array.isArray(reviews)) return NONE;
  const ids = new Set<string>();
  for (const review of reviews) {
    const r = fields(review);
    if ((r.verdict === "rejected" || r.verdict === "unknown_tool") && typeof r.id === "string") ids.add(r.id);
  }
  return ids;
}

const NONE: ReadonlySet<string> = new Set();

/** A refusal a guard would have made of a call that ran (see WOULD_REFUSE_KEY). */
export interface WouldBeRefusal {
  guard: string;
  action: "directive" | "stop";
}

/** The guards that would have refused the call `answer` answers, and let it run. */
export function wouldBeRefusalsOf(answer: unknown): WouldBeRefusal[] {
  const list = fields(fields(answer).response_metadata)[WOULD_REFUSE_KEY];
  if (!Array.isArray(list)) return [];
  const out: WouldBeRefusal[] = [];
  for (const item of list) {
    const { guard, action } = fields(item);
    if (typeof guard === "string" && (action === "directive" || action === "stop")) out.push({ guard, action });
  }
  return out;
}

/** `response_metadata` with `refusals` as its would-be refusals, in place of any it held. */
export function withWouldBeRefusals(responseMetadata: Loose | undefined, refusals: readonly WouldBeRefusal[]): Loose {
  const { [WOULD_REFUSE_KEY]: _replaced, ...rest } = responseMetadata ?? {};
  return refusals.length > 0
    ? { ...rest, [WOULD_REFUSE_KEY]: refusals.map(({ guard, action }) => ({ guard, action })) }
    : rest;
}
