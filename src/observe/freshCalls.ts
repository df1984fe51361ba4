import { isSummary, messageKind, toolCallIdOf, toolCallsOf, contentOf } from "../core/messages.js";
import { fields } from "../core/fields.js";
import { MARK_KEY, markOf, ranUnmarked } from "../core/marks.js";
import { HistoryPrefix } from "../core/historyPrefix.js";
import { argsShapeOf, normalisedArgsText } from "./argsIdentity.js";
import type { Hasher } from "./hash.js";
import { countLeaves, uncountLeaves, type LeafCounts } from "./leafCounts.js";
import { COUNTED_CALLS } from "./nearRepeats.js";

/**
 * What each model turn's calls were when they were asked for, read from the thread alone and far
 * cheaper than the observation store: enough to prove that the loop guards and the runaway guard
 * can only let a batch run (stack/quietPath.ts). Every fact is sufficient, never necessary: a
 * batch it cannot vouch for goes to the guards, which decide it in full.
 */

interface Turn {
  /** Ids of its calls whose tool + normalised arguments no earlier turn asked for. */
  readonly firstAsks: string[];
  /**
   * Every call asked for the first time, no two alike, each with a value (an `ArgsShape` leaf)
   * and none its tool's recent answered calls had: the observation store holds no occurrence and
   * no near-duplicate of any of them (NearRepeats.mayRepeat is false).
   */
  fresh: boolean;
  /** One of its first asks ran and answered with text: it brought something new. */
  brought: boolean;
  /** The model call that wrote it began its run or read something new (see `learned`). */
  readonly learned: boolean;
  /** A guard wrote it (a stop notice in the model's place). */
  readonly marked: boolean;
}

interface PendingCall {
  tool: string;
  leaves: ReadonlySet<string>;
  turn: Turn;
}

export class FreshCalls {
  private readonly processed = new HistoryPrefix();
  private asked = new Set<string>();
  private turns = new WeakMap<object, Turn>();
  private pending = new Map<string, PendingCall>();
  /** The values of each tool's last COUNTED_CALLS answered calls. */
  private recent = new Map<string, RecentValues>();
  /** The latest model turn since the run began (a user's message). */
  private previous: Turn | undefined;
  private storedAny = false;

  constructor(private readonly hash: Hasher) {}

  /**
   * Whether the thread may name a stored result: a result was stored away with its key (a call may
   * then name its content by another key, which the observation store counts as the same call:
   * store.ts `withStoredContent`), or a summary may name one (budget/storedSoFar.ts).
   */
  get stored(): boolean {
    return this.storedAny;
  }

  update(messages: readonly unknown[]): this {
    if (!this.processed.continues(messages)) this.reset();
    for (let i = this.processed.length; i < messages.length; i++) this.add(messages[i]);
    this.processed.reach(messages);
    return this;
  }

  /** Whether the calls of the model turn `aiMessage` are fresh (see `Turn.fresh`). */
  fresh(aiMessage: unknown): boolean {
    return this.turns.get(aiMessage as object)?.fresh === true;
  }

  /**
   * Whether the model call that wrote the turn `aiMessage` began its run or read something new:
   * then the runaway guard's stall is empty after it (its ledger's `idleBelow`, caps aside).
   */
  learned(aiMessage: unknown): boolean {
    return this.turns.get(aiMessage as object)?.learned === true;
  }

  private reset(): void {
    this.processed.clear();
    this.asked = new Set();
    this.turns = new WeakMap();
    this.pending = new Map();
    this.recent = new Map();
    this.previous = undefined;
    this.storedAny = false;
  }

  private add(message: unknown): void {
    if (
      isSummary(message) ||
      typeof fields(fields(fields(fields(message).response_metadata)[MARK_KEY]).original).offloadKey === "string"
    )
      this.storedAny = true;
    const kind = messageKind(message);
    if (kind === "ai") this.addTurn(message as object);
    else if (kind === "tool") this.addAnswer(message);
    else if (kind === "human" && !isSummary(message)) this.previous = undefined;
  }

  private addTurn(message: object): void {
    const calls = toolCallsOf(message);
    // Told when the turn is added: the answers that decide it came before it.
    const { previous } = this;
    const learned = previous === undefined || (!previous.marked && previous.brought);
    const marked = markOf(message) !== undefined;
    const turn: Turn = { firstAsks: [], fresh: calls.length > 0, brought: false, learned, marked };
    // Arrays, not sets: a step's allocations cost inside the graph, and a batch is short.
    const keys: string[] = [];
    for (const call of calls) {
      // An id asked for again while pending is not a new call to the store either.
      if (this.pending.has(call.id)) {
        turn.fresh = false;
        continue;
      }
      const key = askKeyOf(call.name, call.args, this.hash);
      const first = !this.asked.has(key);
      if (first) turn.firstAsks.push(call.id);
      const leaves = argsShapeOf(call.args).leaves;
      if (!first || keys.includes(key) || leaves.size === 0 || this.recent.get(call.name)?.hasAny(leaves))
        turn.fresh = false;
      keys.push(key);
      this.pending.set(call.id, { tool: call.name, leaves, turn });
    }
    for (const key of keys) this.asked.add(key);
    this.turns.set(message, turn);
    this.previous = turn;
  }

  private addAnswer(message: unknown): void {
    const id = toolCallIdOf(message);
    const call = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || !call) return;
    this.pending.delete(id);
    let recent = this.recent.get(call.tool);
    if (!recent) this.recent.set(call.tool, (recent = new RecentValues()));
    recent.add(call.leaves);
    const content = contentOf(message);
    if (call.turn.firstAsks.includes(id) && ranUnmarked(message) && typeof content === "string" && content.length > 0)
      call.turn.brought = true;
  }
}

/**
 * A call's identity as the observation store counts calls (`argsKeyOf`: the same normalised
 * arguments), with short arguments' text kept as it is rather than hashed: a short text costs
 * less to keep than to hash. Calls alike by this key are alike to the store; the store could
 * only count two calls as one that this key tells apart if their texts' 64-bit hashes collided.
 */
function askKeyOf(name: string, args: unknown, hash: Hasher): string {
  const text = normalisedArgsText(args);
  return text.length <= UNHASHED_CHARS ? `${name}\u0000${text}` : `${name}#${hash(text)}`;
}

const UNHASHED_CHARS = 256;

/** The values (`ArgsShape` leaves) of one tool's last COUNTED_CALLS answered calls, counted: one lookup per value. */
class RecentValues {
  private readonly calls: ReadonlySet<string>[] = [];
  private readonly counts: LeafCounts = new Map();

  add(leaves: ReadonlySet<string>): void {
    this.calls.push(leaves);
    countLeaves(this.counts, leaves);
    if (this.calls.length > COUNTED_CALLS) uncountLeaves(this.counts, this.calls.shift()!);
  }

  hasAny(leaves: ReadonlySet<string>): boolean {
    for (const leaf of leaves) if (this.counts.has(leaf)) return true;
    return false;
  }
}

const indexes = new WeakMap<object, FreshCalls>();

/** The index of a history, up to date; a cache found by the history's first message, as the stores are. */
export function freshCallsFor(messages: readonly unknown[], hash: Hasher): FreshCalls {
  const head = messages[0];
  if (head === null || typeof head !== "object") return new FreshCalls(hash).update(messages);
  let index = indexes.get(head);
  if (!index) indexes.set(head, (index = new FreshCalls(hash)));
  return index.update(messages);
}
