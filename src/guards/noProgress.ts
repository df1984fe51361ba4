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
  // The chain walk asks this for every observation it passes: remember the answers (a bounded
  // number of them, since a model may invent any number of tool names).
  const known = new Map<string, boolean>();
  return (tool) => {
    let changes = known.get(tool);
    if (changes === undefined) {
      changes = stateChangingTools.has(tool) || (!readOnlyTools.has(tool) && !READ_ONLY_NAME.test(tool));
      if (known.size < 1024) known.set(tool, changes);
    }
    return changes;
  };
}

/** What the progress guard reads of a history: its observations, indexed by call key. */
export interface ObservedHistory {
  readonly observations: readonly ToolCallObservation[];
  /** Number of human messages in the history. */
  readonly userTurn: number;
  /** Positions in `observations` of the calls with this call key, oldest first. */
  occurrencesOf(callKey: string): readonly number[];
}

/**
 * ProgressAwareLoopGuard's decision. A pending call is judged by the chain of earlier results of
 * the same call since the world last changed: another state-changing call that did something new,
 * or a new user message, starts a fresh chain. Each repeat in the chain that brought nothing new
 * is wasted (errors weigh ERROR_WEIGHT, refused calls 1). One wasted repeat proves the next call
 * will bring nothing either: it gets a directive and is not run. Once a directive was ignored and
 * the waste reaches `stopAt`, the run stops. A duplicate inside the same batch is refused outright.
 */
export function decideNoProgress(history: ObservedHistory, batch: readonly KeyedCall[], options: NoProgressOptions): CallDecision[] {
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
        code: "duplicate_in_batch",
        reason: `"${call.name}" is repeated within one batch of parallel calls.`,
        message: batchDuplicateDirective(call.name),
        detail: { duplicateInBatch: true },
      };
    } else if (batchChangesState) {
      decision = ALLOW;
    } else {
      decision = judgeChain(call.name, chainOf(history, key, options), options);
    }
    decisions.push({ call, decision });
    const isNew = history.occurrencesOf(key).length === 0;
    if (!earlierInBatch.has(key) && options.changesState(call.name) && isNew) batchChangesState = true;
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

/**
 * This call's repeats since the world last changed, newest first. It visits only the call's own
 * occurrences, so a long run of reads costs no more to judge than a short one.
 */
function chainOf(history: ObservedHistory, key: string, options: NoProgressOptions): Chain {
  const { observations, userTurn } = history;
  const chain: Chain = { wasted: 0, refused: 0, occurrences: 0 };
  const occurrences = history.occurrencesOf(key);
  const changedAt = worldChangesOf(observations, options).lastBefore(key);
  let oldest: ToolCallObservation | undefined;
  let reachedBaseline = false;
  for (let k = occurrences.length - 1; k >= 0 && !reachedBaseline; k--) {
    const index = occurrences[k]!;
    const o = observations[index]!;
    if (index < changedAt || o.userTurn !== userTurn) break;
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

/**
 * The latest changes of the world in a list of observations, kept up to date as the list grows:
 * the newest one, and the newest one made by a different call, since a call's own state change
 * does not cut its chain.
 */
class WorldChanges {
  private scanned = 0;
  private latest = -1;
  private latestKey: string | undefined;
  private latestByAnotherKey = -1;

  constructor(private readonly options: NoProgressOptions) {}

  update(observations: readonly ToolCallObservation[]): this {
    for (let i = this.scanned; i < observations.length; i++) {
      const o = observations[i]!;
      if (!isWorldChange(o, this.options)) continue;
      if (o.callKey !== this.latestKey) this.latestByAnotherKey = this.latest;
      this.latest = i;
      this.latestKey = o.callKey;
    }
    this.scanned = observations.length;
    return this;
  }

  /** Position of the newest change of the world by a call other than `key`; -1 if none. */
  lastBefore(key: string): number {
    return key === this.latestKey ? this.latestByAnotherKey : this.latest;
  }
}

// Per observation list (a store's list is replaced, never shortened, when it rebuilds) and per
// guard settings, since what counts as a change of world depends on them.
const worldChanges = new WeakMap<readonly ToolCallObservation[], WeakMap<NoProgressOptions, WorldChanges>>();

function worldChangesOf(observations: readonly ToolCallObservation[], options: NoProgressOptions): WorldChanges {
  let bySettings = worldChanges.get(observations);
  if (!bySettings) worldChanges.set(observations, (bySettings = new WeakMap()));
  let changes = bySettings.get(options);
  if (!changes) bySettings.set(options, (changes = new WorldChanges(options)));
  return changes.update(observations);
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

function judgeChain(tool: string, chain: Chain, options: NoProgressOptions): Decision {
  if (chain.wasted < 1) return ALLOW;
  const detail = { wasted: chain.wasted, refused: chain.refused, occurrences: chain.occurrences, lastStatus: chain.lastStatus };
  const failing = chain.lastStatus === "error";
  const code = failing ? "repeated_error" : "no_progress";
  const reason = failing
    ? `"${tool}" keeps failing with the same ${chain.errorClass && chain.errorClass !== "Error" ? chain.errorClass : "error"} for the same arguments (${chain.occurrences} attempts, nothing changed in between).`
    : `"${tool}" keeps returning nothing new for the same arguments (${chain.occurrences} calls, nothing changed in between).`;
  if (chain.refused > 0 && chain.wasted >= options.stopAt) {
    return { action: "stop", code, reason, message: noProgressDirective(tool, failing), detail };
  }
  return { action: "directive", code, reason, message: noProgressDirective(tool, failing), detail };
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
