import { argsShapeOf, mostlyLetters, nearSameArgs, type ArgsShape } from "./argsIdentity.js";
import { countLeaves, uncountLeaves, type LeafCounts } from "./leafCounts.js";
import { addLines, proseNovelty } from "./novelty.js";
import type { StoredObservation } from "./store.js";

/** A result as near-duplicate matching reads it, computed once per call. */
interface ResultLines {
  /** Its lines with every digit replaced, in order, and as a set. */
  masked: string[];
  maskedSet: Set<string>;
  /** Mostly letters: prose an LLM may have rendered. */
  prose: boolean;
  /** Its lines and prose words (novelty.ts), when first needed. */
  lines: () => Set<string>;
}

/** Whether a result is prose is told from its beginning. */
const PROSE_SCAN_CHARS = 4000;

const DIGITS = /\d+/g;

function maskDigits(text: string): string {
  return text.replace(DIGITS, "0");
}

const SIMILAR = 0;
const SAME_FAILURE = 1;
const NONE_FOUND: readonly number[] = Object.freeze([]);

/** How many earlier calls of the same tool a near-duplicate is looked for among. */
export const NEAR_SCAN = 12;

/**
 * Calls of one tool whose structured values are counted (`mayRepeat`): the NEAR_SCAN a scan
 * visits, plus the newest, for the scan made for that newest call itself.
 */
export const COUNTED_CALLS = NEAR_SCAN + 1;

/** How often each structured value (an `ArgsShape` leaf) occurs among the last COUNTED_CALLS calls of one tool. */
interface RecentLeaves {
  /** The tool's positions counted, as a range of its list in `byTool`. */
  from: number;
  to: number;
  counts: LeafCounts;
}

/** An error names an argument's value within its first characters, if at all. */
const FAILURE_SCAN_CHARS = 2000;
/** A value this short ("1", "no") may be in any error by chance. */
const MIN_NAMED_CHARS = 3;
/** A value that can name a thing: it holds a letter or a digit. */
const NAMEABLE = /[\p{L}\p{N}]/u;

/** Prose (a page read back by an LLM) with at most this share of news by its words (novelty.ts) is the same page. */
const SAME_PROSE_NOVELTY = 0.02;

/**
 * Near-duplicate calls of one history: calls of one tool whose arguments differ in spelling or
 * wording, or by an added field (argsIdentity.ts), but not in what they ask for. Everything is
 * computed when first asked and kept, so a guard pays only for the calls it looks at, and only
 * once per call.
 */
export class NearRepeats {
  private readonly shapes = new Map<number, ArgsShape>();
  private readonly pendingShapes = new Map<unknown, ArgsShape>();
  private readonly byTool = new Map<string, number[]>();
  private indexed = 0;
  private readonly repeatOf = new Map<number, number | null>();
  private readonly results = new Map<number, ResultLines>();
  private readonly failureNames = new Map<number, readonly string[]>();
  private readonly leavesByTool = new Map<string, RecentLeaves>();

  constructor(private readonly list: readonly StoredObservation[]) {}

  shapeAt(index: number): ArgsShape {
    let shape = this.shapes.get(index);
    if (!shape) {
      const { args } = this.list[index]!;
      shape = this.pendingShapes.get(args) ?? argsShapeOf(args);
      this.pendingShapes.delete(args);
      this.shapes.set(index, shape);
    }
    return shape;
  }

  /**
   * The shape of a pending call's arguments, kept until the call is observed: its arguments are
   * the same object then, and are read once. Kept here, with the history, rather than in a
   * module-wide weak map: eval drops a replayed thread's store at once (replay/forgetThread.ts).
   */
  shapeOf(args: unknown): ArgsShape {
    if (args === null || typeof args !== "object") return argsShapeOf(args);
    let shape = this.pendingShapes.get(args);
    if (!shape) this.pendingShapes.set(args, (shape = argsShapeOf(args)));
    return shape;
  }

  /** Whether the call's arguments hold code or a command (near-duplicates of code are only alike in vocabulary). */
  hasCode(index: number): boolean {
    for (const text of this.shapeAt(index).texts.values()) if (!text.prose) return true;
    return false;
  }

  /**
   * Whether `similarBefore` or `sameFailureBefore` can find anything for a call of `tool` with
   * `shape` before `before`; false proves both would find nothing, without comparing a single
   * call. Both need an earlier call sharing a structured value (a leaf) with this one: the leaves
   * of near-duplicates nest (`nearSameArgs`; the smaller set is empty only when both are), and a
   * repeated failure keeps every leaf its error named (`repeatsFailureOf`; at least one). So
   * unless this call has no leaf at all, one lookup per leaf in the counts of the tool's last
   * calls tells. The usual new call (a new id, path or query) shares none and is done here.
   */
  mayRepeat(tool: string, shape: ArgsShape, before: number): boolean {
    if (shape.leaves.size === 0) return true;
    const positions = this.positionsOf(tool);
    const last = positions.length - 1;
    // The counts cover the calls a scan visits only when at most the newest call is not before `before`.
    if (last >= 1 && positions[last - 1]! >= before) return true;
    const counts = this.recentLeaves(tool, positions);
    const newest = last >= 0 && positions[last]! >= before ? this.shapeAt(positions[last]!).leaves : undefined;
    for (const leaf of shape.leaves) {
      const n = counts.get(leaf) ?? 0;
      if (n > (newest?.has(leaf) ? 1 : 0)) return true;
    }
    return false;
  }

  /** The leaf counts of the last COUNTED_CALLS calls of `tool` (its `positions`), brought up to date. */
  private recentLeaves(tool: string, positions: readonly number[]): LeafCounts {
    let recent = this.leavesByTool.get(tool);
    if (!recent) this.leavesByTool.set(tool, (recent = { from: 0, to: 0, counts: new Map() }));
    const { counts } = recent;
    const to = positions.length;
    const from = Math.max(0, to - COUNTED_CALLS);
    // Far behind (a history rebuilt in one go): count only the calls that matter, not every one in between.
    if (from >= recent.to) {
      counts.clear();
      recent.from = recent.to = from;
    }
    for (; recent.to < to; recent.to++) countLeaves(counts, this.shapeAt(positions[recent.to]!).leaves);
    for (; recent.from < from; recent.from++) uncountLeaves(counts, this.shapeAt(positions[recent.from]!).leaves);
    return counts;
  }

  /**
   * Positions of the last NEAR_SCAN calls of `tool` before `before` whose arguments are nearly,
   * but not exactly, those of a call with `argsKey` and `shape`; newest first.
   */
  similarBefore(tool: string, argsKey: string, shape: ArgsShape, before: number): readonly number[] {
    return this.scanBefore(tool, argsKey, shape, before, SIMILAR);
  }

  /**
   * Positions of the last NEAR_SCAN calls of `tool` before `before` that failed in a way a call
   * with `shape` would fail again (see `repeatsFailureOf`); newest first.
   */
  sameFailureBefore(tool: string, argsKey: string, shape: ArgsShape, before: number): readonly number[] {
    return this.scanBefore(tool, argsKey, shape, before, SAME_FAILURE);
  }

  /**
   * Positions of the last NEAR_SCAN calls of `tool` before `before`, other than `argsKey`'s, that
   * match `shape` in the way asked; newest first. Asked twice for every call: it allocates only
   * what it finds.
   */
  private scanBefore(
    tool: string,
    argsKey: string,
    shape: ArgsShape,
    before: number,
    match: typeof SIMILAR | typeof SAME_FAILURE,
  ): readonly number[] {
    const positions = this.positionsOf(tool);
    let out: number[] | undefined;
    let scanned = 0;
    for (let k = positions.length - 1; k >= 0 && scanned < NEAR_SCAN; k--) {
      const j = positions[k]!;
      if (j >= before) continue;
      scanned++;
      if (this.list[j]!.argsKey === argsKey) continue;
      if (match === SIMILAR ? nearSameArgs(shape, this.shapeAt(j)) : this.repeatsFailureOf(shape, j))
        (out ??= []).push(j);
    }
    return out ?? NONE_FOUND;
  }

  /**
   * Whether a call with `shape` is the attempt that failed at `index` again: that call failed,
   * its error names some of its arguments' values (the flight, the file, the id), and `shape`
   * keeps every one of them. What changed is then something the failure was not about (another
   * payment method for a flight that is not available): it fails the same way. An error that
   * names none of its arguments ("balance is not enough") does not say which field was at fault,
   * so a call that changes any field is another attempt.
   */
  repeatsFailureOf(shape: ArgsShape, index: number): boolean {
    const named = this.namedByFailure(index);
    if (named.length === 0) return false;
    for (const leaf of named) if (!shape.leaves.has(leaf)) return false;
    return true;
  }

  /** The argument leaves whose values the error at `index` names; none for a success. */
  private namedByFailure(index: number): readonly string[] {
    const cached = this.failureNames.get(index);
    if (cached) return cached;
    const named: string[] = [];
    const o = this.list[index]!;
    if (o.ran && o.status === "error") {
      const text = o.rawResultText.slice(0, FAILURE_SCAN_CHARS).toLowerCase();
      for (const leaf of this.shapeAt(index).leaves) {
        const value = leaf.slice(leaf.indexOf("=") + 1);
        if (value.length >= MIN_NAMED_CHARS && NAMEABLE.test(value) && text.includes(value)) named.push(leaf);
      }
    }
    this.failureNames.set(index, named);
    return named;
  }

  /**
   * The newest earlier call that this one nearly repeats, arguments and result alike (same
   * status, nothing new in the result), or whose failure it repeats with only fields the failure
   * was not about changed; undefined when there is none. Calls answered without running (by a
   * guard, LangChain, a reviewer) have no result of their own and repeat nothing.
   */
  nearRepeatOf(index: number): number | undefined {
    const cached = this.repeatOf.get(index);
    if (cached !== undefined) return cached ?? undefined;
    const o = this.list[index]!;
    let found: number | undefined;
    const shape = o.ran ? this.shapeAt(index) : undefined;
    if (shape && this.mayRepeat(o.toolName, shape, index)) {
      for (const j of this.similarBefore(o.toolName, o.argsKey, shape, index)) {
        const earlier = this.list[j]!;
        if (!earlier.ran || earlier.status !== o.status) continue;
        if (earlier.resultFingerprint === o.resultFingerprint || this.sameResult(index, j)) {
          found = j;
          break;
        }
      }
      if (found === undefined && o.status === "error") {
        for (const j of this.sameFailureBefore(o.toolName, o.argsKey, shape, index)) {
          if (this.list[j]!.resultFingerprint === o.resultFingerprint) {
            found = j;
            break;
          }
        }
      }
    }
    this.repeatOf.set(index, found ?? null);
    return found;
  }

  /**
   * Whether `text` says nothing that the result at `index` did not: each of its lines is one of
   * that result's (numbers aside: a page seen "8 seconds ago" and "12 seconds ago" is one page).
   * Prose whose lines are mostly new was rendered afresh (a page read back by an LLM): it is the
   * same when it has no new numbers and no new words beyond rewording. Program output is not
   * reworded: with mostly new lines it is a new result. A few new lines
   * among known ones are news, however short (a script printing a new value under the same
   * warnings): stricter than a repeat's novelty floor, since the call itself was different.
   */
  /** Whether the result at `later` says nothing that the result at `earlier` did not (see `sameResult`). */
  sameResultAs(later: number, earlier: number): boolean {
    const a = this.list[later]!;
    const b = this.list[earlier]!;
    return a.status === b.status && (a.resultFingerprint === b.resultFingerprint || this.sameResult(later, earlier));
  }

  /**
   * Whether the result at `later` says nothing that the result at `earlier` did not: each of its
   * lines is one of the earlier result's (numbers aside: a page seen "8 seconds ago" and "12
   * seconds ago" is one page). Prose whose lines are mostly new was rendered afresh (a page read
   * back by an LLM): it is the same when it has no new numbers and no new words beyond rewording.
   * Program output is not reworded, and a few new lines among known ones are news however short
   * (a script printing a new value under the same warnings): stricter than a repeat's novelty
   * floor, since the call itself was different.
   */
  private sameResult(later: number, earlier: number): boolean {
    const text = this.resultAt(later);
    const seen = this.resultAt(earlier);
    let fresh = 0;
    for (const line of text.masked) {
      if (seen.maskedSet.has(line)) continue;
      if (fresh++ === 0 && !text.prose) return false;
    }
    if (fresh === 0) return true;
    if (fresh * 2 < text.masked.length) return false;
    const prose = proseNovelty(this.list[later]!.resultText, seen.lines());
    return prose !== undefined && prose <= SAME_PROSE_NOVELTY;
  }

  private resultAt(index: number): ResultLines {
    let result = this.results.get(index);
    if (!result) {
      const text = this.list[index]!.resultText;
      const masked = maskDigits(text).split("\n");
      let lines: Set<string> | undefined;
      result = {
        masked,
        maskedSet: new Set(masked),
        prose: mostlyLetters(text.length > PROSE_SCAN_CHARS ? text.slice(0, PROSE_SCAN_CHARS) : text),
        lines: () => {
          if (!lines) addLines(text, (lines = new Set()));
          return lines;
        },
      };
      this.results.set(index, result);
    }
    return result;
  }

  private positionsOf(tool: string): readonly number[] {
    for (; this.indexed < this.list.length; this.indexed++) {
      const name = this.list[this.indexed]!.toolName;
      const positions = this.byTool.get(name);
      if (positions) positions.push(this.indexed);
      else this.byTool.set(name, [this.indexed]);
    }
    return this.byTool.get(tool) ?? [];
  }
}
