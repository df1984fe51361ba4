import { ALLOW, type CallDecision, type Decision } from "../../core/decision.js";
import type { ToolCallView } from "../../core/messages.js";
import { wouldBeRefusedBy, type ToolCallObservation } from "../../observe/store.js";
import { identicalCallDirective } from "./texts.js";

/** The guard's name, on its refusals' marks. */
export const LOOP_GUARD = "LoopGuardMiddleware";

export interface IdenticalCallsOptions {
  warnAt: number;
  stopAt: number;
  /** Count among the last `window` (at least 1) calls; undefined counts only consecutive identical calls. */
  window: number | undefined;
  ignoreTools: ReadonlySet<string>;
  /** A result whose newInformationDelta is above this brought something new, and the count starts over. */
  progressFloor: number;
}

/** A pending call with its tool + normalised arguments identity (`argsKeyOf`). */
export interface KeyedCall {
  call: ToolCallView;
  key: string;
}

/** What the loop guard reads of a history (an `ObservationStore`). */
export interface CallHistory {
  readonly observations: readonly ToolCallObservation[];
  /** Number of human messages in the history. */
  readonly userTurn: number;
  /** Answered calls with this tool + normalised arguments (`argsKey`) in the whole history. */
  answeredWith(argsKey: string): number;
}

/** The count of a call made for the first time: itself. */
const FIRST_CALL = 1;

/**
 * LoopGuard's decision: how many times this call (name + normalised arguments) was just made
 * since its result last brought something new. It defers to progress evidence: a poll whose
 * answer moves on every time, or a log that grows on every read, is never counted past its
 * latest new result. Earlier calls of the same batch count (the batch holds the calls that reach
 * the guard: hooks/batchGuard.ts); a new user message starts over; ignored tools and calls that
 * did not run neither count nor break a streak.
 */
export function decideIdenticalCalls(
  history: CallHistory,
  batch: readonly KeyedCall[],
  options: IdenticalCallsOptions,
): CallDecision[] {
  let recent: string[] | undefined;
  const decisions: CallDecision[] = [];
  /** Keys of this batch's counted calls so far, oldest first. */
  const batchKeys: string[] = [];
  for (const { call, key } of batch) {
    if (options.ignoreTools.has(call.name)) {
      decisions.push({ call, decision: ALLOW });
      continue;
    }
    // A call made for the first time, in the history and in its batch, counts itself alone
    // (however the window reads it): no need to read the history back.
    const firstTime = history.answeredWith(key) === 0 && !batchKeys.includes(key);
    batchKeys.push(key);
    if (firstTime) {
      recent?.push(key);
      // With both thresholds above 1 (the usual settings), judge would allow it: no need to ask.
      const allowed = FIRST_CALL < options.warnAt && FIRST_CALL < options.stopAt;
      decisions.push({ call, decision: allowed ? ALLOW : judge(call, FIRST_CALL, options) });
      continue;
    }
    recent ??= [...recentKeys(history.observations, history.userTurn, options), ...batchKeys.slice(0, -1)];
    recent.push(key);
    decisions.push({ call, decision: judge(call, countRepeats(recent, options.window), options) });
  }
  return decisions;
}

/** Keys of the calls that can still matter, oldest first: none before the latest result that brought something new. */
function recentKeys(
  observations: readonly ToolCallObservation[],
  userTurn: number,
  options: IdenticalCallsOptions,
): string[] {
  const keys: string[] = [];
  const limit = options.window ?? Number.POSITIVE_INFINITY;
  // Made when a result first brought something new.
  let progressed: Set<string> | undefined;
  let lastKey: string | undefined;
  for (let i = observations.length - 1; i >= 0 && keys.length < limit; i--) {
    const o = observations[i]!;
    if (o.userTurn !== userTurn) break;
    // A call answered without running (another guard's refusal, a reviewer's reject) is no repeat;
    // nor is one this guard would have refused but let run (observe-only, replay), as live.
    if (!o.ran || wouldBeRefusedBy(o, LOOP_GUARD) || options.ignoreTools.has(o.toolName)) continue;
    const key = o.argsKey;
    // For consecutive counting, history older than the first different call is irrelevant.
    if (options.window === undefined && lastKey !== undefined && key !== lastKey) {
      keys.push(key);
      break;
    }
    lastKey = key;
    // Calls older than a result that brought something new are not counted against that call.
    keys.push(progressed?.has(key) ? PROGRESSED : key);
    if (o.newInformationDelta > options.progressFloor) (progressed ??= new Set()).add(key);
  }
  return keys.reverse();
}

/** Stands for a call older than its own latest progress: it counts as no call. */
const PROGRESSED = "\u0000progressed";

function countRepeats(keys: readonly string[], window: number | undefined): number {
  const key = keys[keys.length - 1];
  let count = 0;
  if (window === undefined) {
    for (let i = keys.length - 1; i >= 0 && keys[i] === key; i--) count++;
  } else {
    for (let i = keys.length - 1; i >= Math.max(0, keys.length - window); i--) if (keys[i] === key) count++;
  }
  return count;
}

function judge(call: ToolCallView, count: number, options: IdenticalCallsOptions): Decision {
  // Nearly every call is allowed: nothing to describe.
  if (count < options.warnAt && count < options.stopAt) return ALLOW;
  const detail = { count, window: options.window ?? "consecutive" };
  if (count >= options.stopAt) {
    return {
      action: "stop",
      code: "identical_calls",
      reason: `"${call.name}" was called ${count} times ${inWindow(options.window)}with identical arguments, each bringing nothing new.`,
      message: identicalCallDirective(call.name, count),
      detail,
    };
  }
  if (count >= options.warnAt) {
    return {
      action: "warn",
      code: "identical_calls",
      reason: `"${call.name}" called ${count} times ${inWindow(options.window)}with identical arguments`,
      detail,
    };
  }
  return ALLOW;
}

function inWindow(window: number | undefined): string {
  return window === undefined ? "in a row " : `in the last ${window} calls `;
}
