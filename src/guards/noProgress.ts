import { ALLOW, type CallDecision, type Decision } from "../core/decision.js";
import { groupsWholeTool, type ToolCallObservation } from "../observe/store.js";
import type { KeyedCall } from "./identicalCalls.js";

export interface NoProgressOptions {
  /** Wasted repeats (errors weigh ERROR_WEIGHT) at which a run that ignored a directive stops. */
  stopAt: number;
  /** A result whose newInformationDelta is at most this brought nothing new. */
  progressFloor: number;
  ignoreTools: ReadonlySet<string>;
  /** Whether a call to this tool may change the world (and so justify repeating a read). */
  changesState: (tool: string) => boolean;
}

/** A repeated error teaches less than a repeated success, so it escalates sooner. */
export const ERROR_WEIGHT = 2;

/**
 * Tool names that only read or compute by convention: get_*, list_*, search_*, read_file, and
 * calculators (calculate, compute_*), whose answer depends on their arguments alone.
 */
const READ_ONLY_NAME =
  /^(?:get|list|read|search|find|fetch|query|view|show|describe|lookup|look_up|check|count|cat|ls|grep|glob|head|tail|stat|inspect|browse|retrieve|calc|calculate|compute|convert)(?:[_\-.A-Z]|$)/;

export function changesStateByName(
  readOnlyTools: ReadonlySet<string>,
  stateChangingTools: ReadonlySet<string>,
): (tool: string) => boolean {
  return (tool) => {
    if (stateChangingTools.has(tool)) return true;
    if (readOnlyTools.has(tool)) return false;
    return !READ_ONLY_NAME.test(tool);
  };
}

/**
 * ProgressAwareLoopGuard's decision. A pending call is judged by the chain of earlier results of
 * the same call since the world last changed: another state-changing call that did something new,
 * or a new user message, starts a fresh chain. Each repeat in the chain that brought nothing new
 * is wasted (errors weigh ERROR_WEIGHT, refused calls 1). One wasted repeat proves the next call
 * will bring nothing either: it gets a directive and is not run. Once a directive was ignored and
 * the waste reaches `stopAt`, the run stops. A duplicate inside the same batch is refused outright.
 */
export function decideNoProgress(
  observations: readonly ToolCallObservation[],
  userTurn: number,
  batch: readonly KeyedCall[],
  options: NoProgressOptions,
): CallDecision[] {
  const decisions: CallDecision[] = [];
  const earlierInBatch = new Set<string>();
  let batchChangesState = false;
  for (const { call, key } of batch) {
    if (options.ignoreTools.has(call.name)) {
      decisions.push({ call, decision: ALLOW });
      continue;
    }
    let decision: Decision;
    if (earlierInBatch.has(key)) {
      decision = {
        action: "directive",
        reason: `"${call.name}" is repeated within one batch of parallel calls.`,
        message: batchDuplicateDirective(call.name),
        detail: { duplicateInBatch: true },
      };
    } else if (batchChangesState) {
      decision = ALLOW;
    } else {
      decision = judgeChain(call.name, chainOf(observations, userTurn, key, options), options);
    }
    decisions.push({ call, decision });
    if (!earlierInBatch.has(key) && options.changesState(call.name) && !seenBefore(observations, key)) batchChangesState = true;
    earlierInBatch.add(key);
  }
  return decisions;
}

interface Chain {
  wasted: number;
  refused: number;
  occurrences: number;
  lastStatus?: "success" | "error";
  errorClass?: string;
}

/** Walks back from the newest result to the last change of the world, collecting this call's repeats. */
function chainOf(
  observations: readonly ToolCallObservation[],
  userTurn: number,
  key: string,
  options: NoProgressOptions,
): Chain {
  const chain: Chain = { wasted: 0, refused: 0, occurrences: 0 };
  let oldest: ToolCallObservation | undefined;
  let reachedBaseline = false;
  for (let i = observations.length - 1; i >= 0 && !reachedBaseline; i--) {
    const o = observations[i]!;
    if (o.userTurn !== userTurn) break;
    if (o.callKey !== key) {
      if (isWorldChange(o, options)) break;
      continue;
    }
    if (chain.lastStatus === undefined && !o.answeredBy) {
      chain.lastStatus = o.status;
      chain.errorClass = o.errorClass;
    }
    oldest = o;
    chain.occurrences++;
    if (o.answeredBy) {
      chain.refused++;
      chain.wasted += 1;
    } else if (isStaleRepeat(o, options)) {
      chain.wasted += weight(o);
    } else {
      reachedBaseline = true;
    }
  }
  // A chain cut by a change of world (or a new user message) starts with a result that answered
  // that new world: it is the baseline, not a wasted repeat.
  if (!reachedBaseline && oldest && !oldest.answeredBy && isStaleRepeat(oldest, options)) chain.wasted -= weight(oldest);
  return chain;
}

function isStaleRepeat(o: ToolCallObservation, options: NoProgressOptions): boolean {
  const isRepeat = o.sameArgsRepeatCount > 0 || groupsWholeTool(o.callKey);
  return isRepeat && o.newInformationDelta <= options.progressFloor;
}

function weight(o: ToolCallObservation): number {
  return o.status === "error" ? ERROR_WEIGHT : 1;
}

function isWorldChange(o: ToolCallObservation, options: NoProgressOptions): boolean {
  if (o.answeredBy || options.ignoreTools.has(o.toolName) || !options.changesState(o.toolName)) return false;
  return o.sameArgsRepeatCount === 0 || o.newInformationDelta > options.progressFloor;
}

function seenBefore(observations: readonly ToolCallObservation[], key: string): boolean {
  for (let i = observations.length - 1; i >= 0; i--) if (observations[i]!.callKey === key) return true;
  return false;
}

function judgeChain(tool: string, chain: Chain, options: NoProgressOptions): Decision {
  if (chain.wasted < 1) return ALLOW;
  const detail = { wasted: chain.wasted, refused: chain.refused, occurrences: chain.occurrences, lastStatus: chain.lastStatus };
  const failing = chain.lastStatus === "error";
  const reason = failing
    ? `"${tool}" keeps failing with the same ${chain.errorClass && chain.errorClass !== "Error" ? chain.errorClass : "error"} for the same arguments (${chain.occurrences} attempts, nothing changed in between).`
    : `"${tool}" keeps returning nothing new for the same arguments (${chain.occurrences} calls, nothing changed in between).`;
  if (chain.refused > 0 && chain.wasted >= options.stopAt) {
    return { action: "stop", reason, message: noProgressDirective(tool, failing), detail };
  }
  return { action: "directive", reason, message: noProgressDirective(tool, failing), detail };
}

/** Read by the model when a repeat that history proves useless is refused. */
export function noProgressDirective(tool: string, failing: boolean): string {
  return failing
    ? `Not run: "${tool}" already failed the same way with these arguments, and nothing has changed since. Fix the cause or change the arguments before trying again; do not repeat the call as is.`
    : `Not run: "${tool}" with these arguments already returned the same result as before, so calling it again will not tell you anything new. Use that result, change the arguments, or take a different approach.`;
}

/** Read by the model when the same call appears twice in one batch. */
export function batchDuplicateDirective(tool: string): string {
  return `Not run: the same "${tool}" call appears earlier in this batch of parallel calls; use that call's result.`;
}
