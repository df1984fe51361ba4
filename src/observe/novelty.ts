import { canonicalJson } from "./canonical.js";
import { fields } from "../core/fields.js";

/** One answered call as a novelty function sees it. */
export interface CallResultView {
  toolName: string;
  args: unknown;
  /** The result text after volatile-field normalisation. */
  text: string;
  status: "success" | "error";
}

/**
 * How much of `current` was not seen in `earlier` (results of the same call, oldest first),
 * in [0, 1]. A tool with a delta override is grouped by name alone, so its calls count as
 * "the same call" even when their arguments churn.
 */
export type DeltaFunction = (current: CallResultView, earlier: readonly CallResultView[]) => number;

/**
 * Share of `text` not seen before, in [0, 1], then its lines (and the words of prose) added to
 * `seen`: what the store does with each result of a repeated call. The share is that of the
 * characters on lines absent from `seen`. Lines are the unit because tool output (logs,
 * listings, pages, JSON documents) changes line by line. Text that an LLM renders on every call
 * (a page read back from a screenshot, a summary) changes its lines, wording and punctuation even
 * when nothing changed, so a multi-line prose result is also measured by its words, and counts
 * by whichever measure finds less: every new number (a count, a price, a position, an age) is
 * news, while new words are news only beyond the share that rewording alone produces
 * (REWORDING_ALLOWANCE). Structured output (JSON) and short results are measured by lines only:
 * code that renders them does not paraphrase.
 */
export function noveltyThenRemember(text: string, seen: Set<string>): number {
  const lines = text.split("\n");
  let fresh = 0;
  for (const line of lines) if (!seen.has(line)) fresh += line.length + 1;
  const delta = text.length === 0 ? 0 : withProse(text, lines.length, Math.min(1, fresh / (text.length + 1)), seen);
  // Every unseen line adds at least 1 to `fresh`.
  if (fresh > 0) remember(text, lines, seen);
  return delta;
}

/** The share by lines, or by words when the text is prose and they find less (see `noveltyThenRemember`). */
function withProse(text: string, lines: number, byLines: number, seen: ReadonlySet<string>): number {
  if (byLines === 0 || !mayBeProse(text, lines)) return byLines;
  const words = wordsOf(text);
  if (words.length < MIN_PROSE_WORDS) return byLines;
  return Math.min(byLines, wordNews(words, proseWords.get(seen)));
}

/** Share of `words` that is news: every new number, and new words beyond rewording (REWORDING_ALLOWANCE). */
function wordNews(words: readonly string[], known: ReadonlySet<string> | undefined): number {
  let newNumbers = 0;
  let newWords = 0;
  for (const word of words) {
    if (known?.has(word)) continue;
    if (HAS_DIGIT.test(word)) newNumbers++;
    else newWords++;
  }
  return (newNumbers + Math.max(0, newWords - REWORDING_ALLOWANCE * words.length)) / words.length;
}

/**
 * Share of `text` that is news by its words alone (see `noveltyThenRemember`), or undefined when `text`
 * is not multi-line prose: for comparing a result with one of another call, where a line-level
 * share would let a small new answer hide among lines of boilerplate.
 */
export function proseNovelty(text: string, seen: ReadonlySet<string>): number | undefined {
  const lines = text.split("\n").length;
  if (!mayBeProse(text, lines)) return undefined;
  const words = wordsOf(text);
  const known = proseWords.get(seen);
  if (words.length < MIN_PROSE_WORDS || !known) return undefined;
  return wordNews(words, known);
}

/** Remembers the lines of `text`, and the words of prose. */
export function addLines(text: string, seen: Set<string>): void {
  const lines = text.split("\n");
  if (lines.some((line) => !seen.has(line))) remember(text, lines, seen);
}

/** Adds the lines of `text` (at least one of them new), and the words of prose. */
function remember(text: string, lines: readonly string[], seen: Set<string>): void {
  for (const line of lines) seen.add(line);
  // Lines already seen were remembered with their words, if they came from prose; a word that
  // came from shorter text only makes a later result look newer, never staler.
  if (!mayBeProse(text, lines.length)) return;
  const words = wordsOf(text);
  if (words.length < MIN_PROSE_WORDS) return;
  let known = proseWords.get(seen);
  if (!known) {
    known = new Set();
    proseWords.set(seen, known);
  }
  for (const word of words) known.add(word);
}

/** Words of the prose remembered in a set of seen lines, kept beside it. */
const proseWords = new WeakMap<ReadonlySet<string>, Set<string>>();

/**
 * Share of its words that an LLM rewording an unchanged input adds. On the Magentic-One OCR of
 * unchanged pages in the recorded runs of docs/evaluation.md new words stay under 0.15 of the
 * text; a scroll to new content brings more.
 */
export const REWORDING_ALLOWANCE = 0.15;

/** A result with fewer lines or words than this is a short answer, not rendered prose. */
const MIN_PROSE_LINES = 3;
const MIN_PROSE_WORDS = 30;

function mayBeProse(text: string, lines: number): boolean {
  if (lines < MIN_PROSE_LINES) return false;
  const first = text.trimStart()[0];
  return first !== "{" && first !== "[";
}

const WORD = /[\p{L}\p{N}_]+/gu;
const HAS_DIGIT = /\d/;

let lastText: string | undefined;
let lastWords: string[] = [];

/** Lower-case words; the store asks for the same text twice in a row (novelty, then remember). */
function wordsOf(text: string): string[] {
  if (text !== lastText) {
    lastWords = text.toLowerCase().match(WORD) ?? [];
    lastText = text;
  }
  return lastWords;
}

/**
 * Novelty by set membership: the share of items in `listField` (of the arguments, else of the
 * JSON result) whose identity was not in any earlier call's list. Use it for tools that rewrite
 * a whole list each time, such as a todo list, where one changed word should not read as progress.
 *
 * @param listField field holding the array
 * @param itemKey field that identifies an item; the whole item (canonical JSON) when omitted
 * @example new ProgressAwareLoopGuardMiddleware({ deltaOverrides: { write_todos: makeSetMembershipDelta("todos", "content") } })
 */
export function makeSetMembershipDelta(listField: string, itemKey?: string): DeltaFunction {
  const identities = (view: CallResultView): string[] => {
    const list = listOf(view.args, listField) ?? listOf(parseJson(view.text), listField) ?? [];
    return list.map((item) => {
      const key =
        itemKey !== undefined && item !== null && typeof item === "object"
          ? (item as Record<string, unknown>)[itemKey]
          : item;
      return canonicalJson(key);
    });
  };
  return (current, earlier) => {
    const items = identities(current);
    if (items.length === 0) return 0;
    const seen = new Set<string>();
    for (const view of earlier) for (const id of identities(view)) seen.add(id);
    return items.filter((id) => !seen.has(id)).length / items.length;
  };
}

function listOf(source: unknown, field: string): unknown[] | undefined {
  const list = fields(source)[field];
  return Array.isArray(list) ? list : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
