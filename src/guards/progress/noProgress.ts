import { ALLOW, type CallDecision, type Decision } from "../../core/decision.js";
import type { ToolCallView } from "../../core/messages.js";
import type { NearRepeats } from "../../observe/nearRepeats.js";
import { isReadOnlyCommand } from "../../observe/readOnlyCommand.js";
import {
  groupsWholeTool,
  wouldBeRefusedBy,
  type StoredObservation,
  type ToolCallObservation,
} from "../../observe/store.js";
import { batchDuplicateDirective, noProgressDirective } from "./texts.js";
import type { KeyedCall } from "../loop/identicalCalls.js";

export interface NoProgressOptions {
  /** Wasted repeats (errors weigh ERROR_WEIGHT) at which a run that ignored a directive stops. */
  stopAt: number;
  /** A result whose newInformationDelta is at most this brought nothing new. */
  progressFloor: number;
  ignoreTools: ReadonlySet<string>;
  /** Whether a call to this tool may change the world (and so justify repeating a read). */
  changesState: (tool: string) => boolean;
  /** Tools polled for a change (a job's status): an unchanged answer is waited on this many times before a directive. */
  pollingTools?: ReadonlySet<string>;
  pollPatience?: number;
}

/** The guard's name, on its refusals' marks: its own refusals are the directives a repeat ignores. */
export const PROGRESS_GUARD = "ProgressAwareLoopGuardMiddleware";

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

/**
 * Whether a call may change the world: by its tool's name, unless it is a shell command that
 * only reads (a `grep`, a `cat`, a `find`: observe/readOnlyCommand.ts). A read between two
 * repeats of a call cannot have changed what the call answers.
 */
function changesStateOf(tool: string, args: unknown, options: NoProgressOptions): boolean {
  return options.changesState(tool) && !isReadOnlyCommand(args);
}

/** What the progress guard reads of a history: its observations, indexed by call key. */
export interface ObservedHistory {
  readonly observations: readonly StoredObservation[];
  /** Number of human messages in the history. */
  readonly userTurn: number;
  /** The beginning of the user message that started user turn `turn` (1-based), lower-cased. */
  userMessage(turn: number): string;
  /** Positions in `observations` of the calls with this call key, oldest first. */
  occurrencesOf(callKey: string): readonly number[];
  /** Near-duplicate calls (observe/nearRepeats.ts). */
  readonly near: NearRepeats;
}

/** A pending call with what counts as the same call (`key`) and its normalised arguments' key. */
export interface ProgressKeyedCall extends KeyedCall {
  argsKey: string;
}

/**
 * ProgressAwareLoopGuard's decision. A pending call is judged by the chain of earlier results of
 * the same call, or of nearly the same call (reworded, respelled, a field added: argsIdentity.ts;
 * a retry of a failure that keeps every value the error names: nearRepeats.ts), since the world
 * last changed: another state-changing call that did something new starts a fresh chain (a
 * read-only shell command changes nothing); so does a user message about the call, except for a
 * call that keeps failing the same way, since a message cannot change what the tool answers. Each result in the chain that brought
 * nothing new is wasted (errors weigh ERROR_WEIGHT, calls this guard refused 1; a call anything
 * else answered without running did not run, and counts for nothing). A change the agent undid by
 * repeating its call in vain (the "back" of a click-back-click-back cycle) does not start a new
 * chain: the world it made is one already seen. One wasted
 * repeat proves the next call will bring nothing either: it gets a directive and is not run
 * (a polling tool gets `pollPatience` of them). Once a directive was ignored and the waste
 * reaches `stopAt`, the run stops. A duplicate inside the same batch (the calls that reach the
 * guard) is refused outright.
 */
export function decideNoProgress(
  history: ObservedHistory,
  batch: readonly ProgressKeyedCall[],
  options: NoProgressOptions,
): CallDecision[] {
  const decisions: CallDecision[] = [];
  const earlierInBatch = new Set<string>();
  let batchChangesState = false;
  for (const keyed of batch) {
    const { call, key } = keyed;
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
      // Most calls have no earlier occurrence, nor a near-duplicate: nothing to walk, and nothing
      // wasted, which judgeChain allows (its patience is 1 but for a polling tool's, which may be less).
      const members = membersOf(history, keyed);
      decision =
        members.length === 0 && !options.pollingTools?.has(call.name)
          ? ALLOW
          : judgeChain(
              call.name,
              members.length === 0 ? NO_REPEATS : chainOf(history, keyed, members, options),
              options,
            );
    }
    decisions.push({ call, decision });
    // What a call tells the calls after it in its batch: the last one (most often the only one) has none to tell.
    if (decisions.length === batch.length) break;
    const isNew = history.occurrencesOf(key).length === 0;
    if (!earlierInBatch.has(key) && changesStateOf(call.name, call.args, options) && isNew) batchChangesState = true;
    earlierInBatch.add(key);
  }
  return decisions;
}

interface Chain {
  wasted: number;
  refused: number;
  occurrences: number;
  /** Occurrences whose arguments were not exactly the pending call's. */
  near: number;
  lastStatus?: "success" | "error";
  errorClass?: string;
}

/** The chain of a call that repeats nothing. */
const NO_REPEATS: Readonly<Chain> = Object.freeze({ wasted: 0, refused: 0, occurrences: 0, near: 0 });

/**
 * This call's repeats since the world last changed, newest first, among its `members` (not
 * empty). It visits only the call's own occurrences and the few recent near-duplicates, so a
 * long run of reads costs no more to judge than a short one.
 */
function chainOf(
  history: ObservedHistory,
  { call, key, argsKey }: ProgressKeyedCall,
  members: readonly number[],
  options: NoProgressOptions,
): Chain {
  const { observations, userTurn } = history;
  const chain: Chain = { wasted: 0, refused: 0, occurrences: 0, near: 0 };
  const judge = judgeOf(history, options);
  const heard = new UserTurns(history, call);
  const changedAt = judge.lastLastingChange(members);
  let oldest: number | undefined;
  let reachedBaseline = false;
  for (const index of members) {
    const o = observations[index]!;
    if (index < changedAt) break;
    const near = o.argsKey !== argsKey && !groupsWholeTool(key);
    const ran = ranForThisGuard(o);
    // A call answered without running has no result to repeat: only this guard's own refusal of
    // this very call, in this user turn, counts (as a directive ignored). So does a refusal it
    // would have made of a call it let run (observe-only, replay): the model repeated it anyway.
    if (!ran && (near || o.userTurn !== userTurn || !refusedByThisGuard(o))) continue;
    // A user message may change what a call does, but not how a call that keeps failing fails;
    // and only a message about the call (naming what it asks for, or asking for it again) can.
    if (o.userTurn !== userTurn && o.status !== "error" && heard.about(o.userTurn)) break;
    if (chain.lastStatus === undefined && ran) {
      chain.lastStatus = o.status;
      chain.errorClass = o.errorClass;
    }
    oldest = index;
    chain.occurrences++;
    if (near) chain.near++;
    if (!ran) {
      chain.refused++;
      chain.wasted += 1;
    } else if (judge.isWasted(index)) {
      chain.wasted += weight(observations[index]!);
    } else {
      reachedBaseline = true;
      break;
    }
  }
  // Nothing in the chain ran (its first call was answered by someone else, the rest refused by
  // this guard as duplicates in their batch): no result to repeat, so nothing was wasted.
  if (chain.lastStatus === undefined) return NO_REPEATS;
  // A chain cut by a change of the world (or a user message) starts with a result that answered
  // that new world: it is the baseline, not a wasted repeat; unless a call that acts answered
  // exactly what it answered before the change, which then did not touch it. A read after an edit
  // is always a baseline: checking what an edit did is no loop, whatever the edit did.
  if (
    !reachedBaseline &&
    oldest !== undefined &&
    judge.isWasted(oldest) &&
    !(judge.unchangedByChange(oldest) && changesStateOf(call.name, call.args, options))
  ) {
    chain.wasted -= weight(observations[oldest]!);
  }
  return chain;
}

/**
 * The user messages since a call, read newest first and each once per judgement: whether any
 * of them is about the call. A message is about it when it names one of the call's values (an
 * id, a file, a quoted query) or asks for something again ("check again", "retry", "try once
 * more"). A chatty turn ("thanks", "go on"), a harness reminder of the answer format or a
 * hand-off that names nothing of the call changes nothing the call reads.
 */
class UserTurns {
  private checkedDownTo: number;
  private found = false;
  private values?: string[];

  constructor(
    private readonly history: ObservedHistory,
    private readonly call: ToolCallView,
  ) {
    this.checkedDownTo = history.userTurn + 1;
  }

  /**
   * Whether a user message after user turn `since` (up to now) is about the call. Only the last
   * MAX_USER_TURNS_READ messages are read: an occurrence further back counts as cut off, so a
   * judgement never reads the whole conversation.
   */
  about(since: number): boolean {
    for (; !this.found && this.checkedDownTo > since + 1;) {
      this.checkedDownTo--;
      if (this.history.userTurn - this.checkedDownTo >= MAX_USER_TURNS_READ) {
        this.found = true;
        break;
      }
      const text = this.history.userMessage(this.checkedDownTo);
      if (ASKS_AGAIN.test(text) || this.valuesOfCall().some((value) => text.includes(value))) this.found = true;
    }
    return this.found;
  }

  private valuesOfCall(): string[] {
    if (!this.values) {
      this.values = [];
      for (const leaf of this.history.near.shapeOf(this.call.args).leaves) {
        const value = leaf.slice(leaf.indexOf("=") + 1);
        if (value.length >= MIN_NAMED_VALUE_CHARS) this.values.push(value);
      }
    }
    return this.values;
  }
}

const ASKS_AGAIN =
  /\b(?:again|retry|re-?try|re-?check|re-?run|once more|refresh|reload|try now|updated?|changed|fixed|uploaded|added)\b/;
/** User messages read back per judgement; a loop of chatty turns shows well within them. */
const MAX_USER_TURNS_READ = 8;
/** A shorter value ("1", "no") may be in any message by chance. */
const MIN_NAMED_VALUE_CHARS = 3;

/** Positions of the earlier calls that count as this call, newest first. */
function membersOf(history: ObservedHistory, { call, key, argsKey }: ProgressKeyedCall): number[] {
  const exact = history.occurrencesOf(key);
  let near: readonly number[] = [];
  const end = history.observations.length;
  const shape = groupsWholeTool(key) ? undefined : history.near.shapeOf(call.args);
  if (shape && history.near.mayRepeat(call.name, shape, end)) {
    near = history.near.similarBefore(call.name, argsKey, shape, end);
    // An earlier failure this call would repeat (only fields the error was not about changed).
    const failures = history.near.sameFailureBefore(call.name, argsKey, shape, end);
    if (failures.length > 0) near = [...near, ...failures.filter((j) => !near.includes(j))];
  }
  if (near.length === 0) return [...exact].reverse();
  const members = [...exact, ...near];
  return members.sort((a, b) => b - a);
}

/**
 * What the guard concludes about each observation of one history, with its settings: whether a
 * result was wasted, and where the world changed. Kept per observation list and settings, and
 * brought up to date as the list grows.
 */
class Judge {
  readonly changes = new WorldChanges();
  private readonly wasted = new Map<number, boolean>();
  private scanned = 0;

  constructor(
    private readonly history: ObservedHistory,
    private readonly options: NoProgressOptions,
  ) {}

  update(): this {
    const { observations } = this.history;
    for (let i = this.scanned; i < observations.length; i++) if (this.isWorldChange(i)) this.changes.add(i);
    this.scanned = observations.length;
    return this;
  }

  /**
   * Whether a result brought nothing new: the same call's earlier results already held it, or a
   * near-duplicate call got the same result. For a call that may change the world, a repeated
   * answer proves nothing changed only when it says something: an error, or content (a page
   * shown again). A repeated empty acknowledgement (an edit's) proves it only when nothing else
   * changed the world since the call it repeats: an edit applied twice may change a file twice.
   */
  isWasted(index: number): boolean {
    let wasted = this.wasted.get(index);
    if (wasted !== undefined) return wasted;
    const { observations, near } = this.history;
    const o = observations[index]!;
    wasted = false;
    if (ranForThisGuard(o)) {
      const proves = () =>
        o.status === "error" || !changesStateOf(o.toolName, o.args, this.options) || hasContent(o.rawResultText);
      if (isStaleRepeat(o, this.options)) {
        wasted = proves() || !this.changes.between(this.previousOccurrence(index), index);
      }
      if (!wasted && !groupsWholeTool(o.callKey)) {
        const earlier = near.nearRepeatOf(index);
        // Code with the same vocabulary may still be a new experiment (another separator, another
        // input): it repeats an earlier run only once that run was itself proven a useless repeat.
        if (earlier !== undefined) {
          const trusted = proves() && !near.hasCode(index);
          wasted = trusted || (this.isWasted(earlier) && !this.changes.between(earlier, index));
        }
      }
    }
    this.wasted.set(index, wasted);
    return wasted;
  }

  /** Whether the result at `index` is the very result the same call gave the time before. */
  unchangedByChange(index: number): boolean {
    const previous = this.previousOccurrence(index);
    return previous >= 0 && this.history.near.sameResultAs(index, previous);
  }

  private previousOccurrence(index: number): number {
    const positions = this.history.occurrencesOf(this.history.observations[index]!.callKey);
    const k = lowerBound(positions, index);
    return k > 0 ? positions[k - 1]! : -1;
  }

  /**
   * Position of the newest change of the world, by a call not among `members` (sorted newest
   * first), that lasted: a change whose call was repeated since and changed nothing (the "back"
   * of a click-back-click-back cycle) only returned to a world already seen. -1 if none.
   */
  lastLastingChange(members: readonly number[]): number {
    let before = Number.POSITIVE_INFINITY;
    for (let checked = 0; checked < MAX_UNDONE_CHANGES; checked++) {
      const at = this.changes.lastOutside(members, before);
      if (at < 0 || !this.repeatedInVain(at)) return at;
      before = at;
    }
    return -1;
  }

  /** Whether the call that changed the world at `index` was made again later and changed nothing. */
  private repeatedInVain(index: number): boolean {
    const positions = this.history.occurrencesOf(this.history.observations[index]!.callKey);
    for (let k = lowerBound(positions, index + 1); k < positions.length; k++)
      if (this.isWasted(positions[k]!)) return true;
    return false;
  }

  /** A call that may change the world changed it unless it was refused, failed, or proved it changed nothing. */
  private isWorldChange(index: number): boolean {
    const o = this.history.observations[index]!;
    if (
      !ranForThisGuard(o) ||
      o.status === "error" ||
      this.options.ignoreTools.has(o.toolName) ||
      !changesStateOf(o.toolName, o.args, this.options)
    )
      return false;
    return !this.isWasted(index);
  }
}

/** Positions where the world changed, oldest first. */
class WorldChanges {
  private readonly at: number[] = [];

  add(index: number): void {
    this.at.push(index);
  }

  /** Whether the world changed strictly between two positions. */
  between(from: number, to: number): boolean {
    const k = lowerBound(this.at, from + 1);
    return k < this.at.length && this.at[k]! < to;
  }

  /** Position of the newest change of the world before `before` by a call not among `members` (sorted newest first); -1 if none. */
  lastOutside(members: readonly number[], before = Number.POSITIVE_INFINITY): number {
    let m = 0;
    for (let k = lowerBound(this.at, before) - 1; k >= 0; k--) {
      const index = this.at[k]!;
      while (m < members.length && members[m]! > index) m++;
      if (members[m] !== index) return index;
    }
    return -1;
  }
}

/** Changes undone by a repeat that are looked past before the chain is taken as cut: cycles are short. */
const MAX_UNDONE_CHANGES = 8;

/** First position in an ascending list holding a value >= `value`. */
function lowerBound(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const MARKUP = /<[^>]*>/g;
const WORD_OF_LETTERS = /\p{L}{2,}/u;

/**
 * Whether a result says something about the world: a word outside markup. An edit's empty
 * acknowledgement (`<returncode>0</returncode><output></output>`) does not.
 */
function hasContent(text: string): boolean {
  // A word shows early, if at all: an acknowledgement is short.
  const head = text.length > CONTENT_SCAN_CHARS ? text.slice(0, CONTENT_SCAN_CHARS) : text;
  return WORD_OF_LETTERS.test(head.replace(MARKUP, " "));
}

const CONTENT_SCAN_CHARS = 2000;

// Per observation list (a store's list is replaced, never shortened, when it rebuilds) and per
// guard settings, since what counts as wasted and as a change of world depends on them.
const judges = new WeakMap<readonly StoredObservation[], WeakMap<NoProgressOptions, Judge>>();

/** Drops what the guard concluded about an observation list (see `forgetObservations`). */
export function forgetJudgements(observations: readonly StoredObservation[]): void {
  judges.delete(observations);
}

function judgeOf(history: ObservedHistory, options: NoProgressOptions): Judge {
  let bySettings = judges.get(history.observations);
  if (!bySettings) judges.set(history.observations, (bySettings = new WeakMap()));
  let judge = bySettings.get(options);
  if (!judge) bySettings.set(options, (judge = new Judge(history, options)));
  return judge.update();
}

/**
 * Whether a call ran, as this guard's escalation reads it: a call it would have refused but let
 * run (it only observed, or replay judges a recorded thread) stands for the refusal live
 * enforcement would have made. Every other guard still counts it as a call that ran.
 */
function ranForThisGuard(o: ToolCallObservation): boolean {
  return o.ran && !wouldBeRefusedBy(o, PROGRESS_GUARD);
}

/** Whether this guard refused the call, or would have (see `ranForThisGuard`). */
function refusedByThisGuard(o: ToolCallObservation): boolean {
  return o.ran ? wouldBeRefusedBy(o, PROGRESS_GUARD) : o.answeredBy?.guard === PROGRESS_GUARD;
}

function isStaleRepeat(o: ToolCallObservation, options: NoProgressOptions): boolean {
  const isRepeat = o.sameArgsRepeatCount > 0 || groupsWholeTool(o.callKey);
  return isRepeat && o.newInformationDelta <= options.progressFloor;
}

function weight(o: ToolCallObservation): number {
  return o.status === "error" ? ERROR_WEIGHT : 1;
}

function judgeChain(tool: string, chain: Readonly<Chain>, options: NoProgressOptions): Decision {
  const patience = options.pollingTools?.has(tool) ? (options.pollPatience ?? 1) : 1;
  if (chain.wasted < patience) return ALLOW;
  const detail = {
    wasted: chain.wasted,
    refused: chain.refused,
    occurrences: chain.occurrences,
    nearDuplicates: chain.near,
    lastStatus: chain.lastStatus,
  };
  const failing = chain.lastStatus === "error";
  const args = chain.near > 0 ? "the same (or nearly the same) arguments" : "the same arguments";
  const reason = failing
    ? `"${tool}" keeps failing with the same ${chain.errorClass && chain.errorClass !== "Error" ? chain.errorClass : "error"} for ${args} (${chain.occurrences} attempts, nothing changed in between).`
    : `"${tool}" keeps returning nothing new for ${args} (${chain.occurrences} calls, nothing changed in between).`;
  const code = failing ? "repeated_error" : "no_progress";
  if (chain.refused > 0 && chain.wasted >= Math.max(options.stopAt, patience)) {
    return { action: "stop", code, reason, message: noProgressDirective(tool, failing), detail };
  }
  return { action: "directive", code, reason, message: noProgressDirective(tool, failing), detail };
}
