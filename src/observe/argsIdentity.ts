import { canonicalJson } from "./canonical.js";
import type { Hasher } from "./hash.js";

/**
 * Tool arguments as the loop guards compare them. Two spellings of one request are the same
 * call: key order, casing, runs of whitespace and comments in code do not change what a tool
 * is asked to do (a script re-run with only a comment added prints what it printed before).
 */
export function normaliseArgs(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return NEEDS_NORMALISING.test(value) ? normaliseText(value) : value;
  if (value === null || typeof value !== "object") return value;
  // Deeper than any real call (or a cycle): the rest is compared as written.
  if (depth >= MAX_NORMALISED_DEPTH) return value;
  // Returns the very value when nothing changes, so a caller can tell spelling made no difference.
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = normaliseArgs(value[i], depth + 1);
      if (item !== value[i] && !out) out = value.slice(0, i);
      out?.push(item);
    }
    return out ?? value;
  }
  // Nearly every call's arguments are already normal: find out before building anything.
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = record[key];
    const v = normaliseArgs(item, depth + 1);
    if (key.toLowerCase() !== key || v !== item) return normalisedRecord(record, keys, i, v, depth);
  }
  return value;
}

/** `record` with its keys lower-cased and its values normalised, the first `changedAt` entries unchanged. */
function normalisedRecord(
  record: Record<string, unknown>,
  keys: readonly string[],
  changedAt: number,
  changedValue: unknown,
  depth: number,
): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (i < changedAt) entries.push([key, record[key]]);
    else entries.push([key.toLowerCase(), i === changedAt ? changedValue : normaliseArgs(record[key], depth + 1)]);
  }
  return Object.fromEntries(entries);
}

const MAX_NORMALISED_DEPTH = 32;

/** A string normalisation changes: upper case, whitespace other than single spaces, or lines (which may end in comments). */
const NEEDS_NORMALISING = /[A-Z\t\n\r\f\v]|\s\s|^\s|\s$/;

/** `name#hash` of the normalised arguments: what counts as "the same call" for the loop guards. */
export function argsKeyOf(name: string, args: unknown, hash: Hasher): string {
  return `${name}#${hash(normalisedArgsText(args))}`;
}

/** The text a call's identity is the hash of: its normalised arguments as canonical JSON. */
export function normalisedArgsText(args: unknown): string {
  return canonicalJson(normaliseArgs(args ?? {}));
}

/**
 * The call's normalised identity, and whether normalising changed the arguments at all: when it
 * did not, the hash of the exact arguments is the same, and need not be computed twice.
 */
export function argsIdentity(
  name: string,
  args: unknown,
  hash: Hasher,
): { argsKey: string; digest: string; exact: boolean } {
  const value = args ?? {};
  const normalised = normaliseArgs(value);
  const digest = hash(canonicalJson(normalised));
  return { argsKey: `${name}#${digest}`, digest, exact: normalised === value };
}

const WHITESPACE = /\s+/g;

export function normaliseText(text: string): string {
  // Every store and the near-duplicate reading normalise the same arguments: remember the last few long ones.
  if (text.length < CACHED_TEXT_CHARS) return normalise(text);
  let normalised = recentTexts.get(text);
  if (normalised === undefined) {
    normalised = normalise(text);
    if (recentTexts.size >= RECENT_TEXTS) recentTexts.delete(recentTexts.keys().next().value!);
    recentTexts.set(text, normalised);
  }
  return normalised;
}

const CACHED_TEXT_CHARS = 64;
const RECENT_TEXTS = 256;
const recentTexts = new Map<string, string>();

function normalise(text: string): string {
  const mayHaveComments = text.includes("\n") && (text.includes("#") || text.includes("//"));
  const withoutComments = mayHaveComments ? text.split("\n").map(withoutLineComment).join("\n") : text;
  // Replacing builds a new string even when every match is already a single space.
  const spaced = MESSY_WHITESPACE.test(withoutComments) ? withoutComments.replace(WHITESPACE, " ") : withoutComments;
  return spaced.trim().toLowerCase();
}

/** What `WHITESPACE` would change: a run of whitespace, or whitespace other than a space. */
const MESSY_WHITESPACE = /\s\s|[^\S ]/;

const COMMENT_START = /(^|\s)(#|\/\/)/g;

/**
 * A line of code without the comment that ends it: from a `#` or `//` at the start or after
 * whitespace, outside quotes (an even number of each quote character before it).
 */
function withoutLineComment(line: string): string {
  COMMENT_START.lastIndex = 0;
  for (let match = COMMENT_START.exec(line); match; match = COMMENT_START.exec(line)) {
    const at = match.index + match[1]!.length;
    const before = line.slice(0, at);
    if (evenCount(before, "'") && evenCount(before, '"') && evenCount(before, "`")) return before;
  }
  return line;
}

function evenCount(text: string, char: string): boolean {
  let n = 0;
  for (let i = text.indexOf(char); i !== -1; i = text.indexOf(char, i + 1)) n++;
  return n % 2 === 0;
}

/**
 * What near-duplicate matching reads of a call's arguments: structured values (ids, numbers,
 * flags, short strings) as `path=value` leaves, and free text (instructions, code, actions) as
 * word sets per path. Array items share their array's path, so one added item adds leaves
 * without shifting the others.
 */
export interface ArgsShape {
  leaves: Set<string>;
  texts: Map<string, TextWords>;
}

/** A free-text argument's words, and its pairs of adjacent words (word order matters in a short text). */
export interface TextWords {
  words: Set<string>;
  /** The words in order; their adjacent pairs are built when first compared (`pairsOf`). */
  sequence: string[];
  pairs?: Set<string>;
  /** Mostly letters (an instruction, an action); otherwise code or a command. */
  prose: boolean;
}

/** A string of at least this many words, all but one with letters, is free text, compared by similarity (a date is a value). */
const FREE_TEXT_WORDS = 3;
const HAS_LETTER = /\p{L}/u;
const WORD = /[\p{L}\p{N}_]+/gu;

/** The shape of a call's arguments, read afresh (a history keeps them: `NearRepeats.shapeOf`). */
export function argsShapeOf(args: unknown): ArgsShape {
  const shape: ArgsShape = { leaves: new Set(), texts: new Map() };
  collect(args ?? {}, "", shape, 0);
  return shape;
}

/**
 * Free text is read up to this many characters: enough to tell two requests or scripts apart
 * (and a near-duplicate counts only with the same result too), while a heredoc of a whole file
 * costs no more than its beginning.
 */
const MAX_TEXT_CHARS = 1500;

/**
 * Text `normaliseText` returns as it is: printable ASCII without capitals, words separated by
 * single spaces (no line to hold a comment, no whitespace to squeeze or trim, nothing to
 * lower-case). Most values (ids, paths, keys) are: they need not be normalised.
 */
export const ALREADY_NORMAL = /^(?:[!-@[-~]+(?: [!-@[-~]+)*)?$/;

function collect(value: unknown, path: string, shape: ArgsShape, depth: number): void {
  if (depth > 8) {
    shape.leaves.add(`${path}=${canonicalJson(value)}`);
    return;
  }
  if (typeof value === "string") {
    const read = value.length > MAX_TEXT_CHARS ? value.slice(0, MAX_TEXT_CHARS) : value;
    const text = ALREADY_NORMAL.test(read) ? read : normaliseText(read);
    const words = text.match(WORD) ?? [];
    if (words.length >= FREE_TEXT_WORDS && hasWordsWithLetters(words, FREE_TEXT_WORDS - 1)) {
      const prose = isProse(text, words);
      // What an instruction quotes (the query typed, the element clicked, the file named) is a
      // value, not wording: it must match exactly.
      if (prose)
        for (const quoted of quotedIn(text)) shape.leaves.add(`${path}'=${(quoted.match(WORD) ?? []).join(" ")}`);
      const entry = shape.texts.get(path);
      if (entry) {
        for (const word of words) {
          entry.words.add(word);
          entry.sequence.push(word);
        }
        entry.pairs = undefined;
      } else {
        // The usual case, one text per path: its word list is the sequence as it is.
        shape.texts.set(path, { words: new Set(words), sequence: words, prose });
      }
    } else {
      shape.leaves.add(`${path}=${text}`);
    }
    return;
  }
  if (value === null || typeof value !== "object") {
    shape.leaves.add(`${path}=${String(value)}`);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) collect(item, `${path}[]`, shape, depth + 1);
    return;
  }
  for (const [key, item] of Object.entries(value)) collect(item, `${path}.${key.toLowerCase()}`, shape, depth + 1);
}

/**
 * Whether two calls of one tool ask for nearly the same thing: every free-text argument reworded
 * at most (see `similarText`), and the structured arguments equal, or one call's a strict
 * superset of the other's (a field or an item added, nothing changed). A changed id, amount or
 * path is a different request, however small the change: that is exploration, not repetition.
 */
export function nearSameArgs(a: ArgsShape, b: ArgsShape): boolean {
  // The structured values first: they tell most calls apart before any wording is compared.
  if (a.texts.size !== b.texts.size || !sameOrNested(a.leaves, b.leaves)) return false;
  for (const path of a.texts.keys()) {
    const other = b.texts.get(path);
    if (!other || !similarText(a.texts.get(path)!, other)) return false;
  }
  return true;
}

function sameOrNested(a: Set<string>, b: Set<string>): boolean {
  // No destructured pair here or below: compared by the thousand, each would be an array made and dropped.
  const small = a.size <= b.size ? a : b;
  const large = small === a ? b : a;
  for (const leaf of small) if (!large.has(leaf)) return false;
  // Adding to nothing is a different request: a call with no structured arguments says nothing.
  return small.size > 0 || large.size === 0;
}

/**
 * Whether two free texts ask for the same thing. A long instruction reworded keeps at least half
 * of its words (Jaccard similarity of the word sets); in a short one (a query, a click) one
 * different word, or the same words in another order, is a different request, so short texts
 * must match almost word for word and pair for pair, or one must say all the other says, with
 * a clause added. Code asks for the same thing only with the
 * same vocabulary (a conditional rewritten, statements reordered): one changed name or value is
 * another experiment.
 */
export function similarText(a: TextWords, b: TextWords): boolean {
  if (!a.prose || !b.prose) {
    if (a.words.size !== b.words.size) return false;
    return jaccard(a.words, b.words) === 1 && jaccard(pairsOf(a), pairsOf(b)) >= CODE_PAIR_SIMILARITY;
  }
  const fewer = Math.min(a.words.size, b.words.size);
  const more = Math.max(a.words.size, b.words.size);
  // Jaccard similarity cannot exceed the ratio of the sizes.
  if (fewer < LONG_TEXT_SIMILARITY * more && fewer < EXTENDED_MIN_WORDS) return false;
  const sharedWords = sharedCount(a.words, b.words);
  const wordSimilarity = similarityOf(a.words, b.words, sharedWords);
  if (a.words.size + b.words.size - sharedWords >= LONG_TEXT_WORDS) return wordSimilarity >= LONG_TEXT_SIMILARITY;
  if (extends_(a, b) || extends_(b, a)) return true;
  if (wordSimilarity < SHORT_TEXT_SIMILARITY) return false;
  return jaccard(pairsOf(a), pairsOf(b)) >= SHORT_TEXT_SIMILARITY;
}

/** Whether `longer` says all that `shorter` says, in the same order, and more: a request with a clause added. */
function extends_(shorter: TextWords, longer: TextWords): boolean {
  if (shorter.words.size < EXTENDED_MIN_WORDS || shorter.words.size >= longer.words.size) return false;
  const longerPairs = pairsOf(longer);
  for (const pair of pairsOf(shorter)) if (!longerPairs.has(pair)) return false;
  for (const word of shorter.words) if (!longer.words.has(word)) return false;
  return true;
}

/** Code's punctuation: assignments, calls, blocks, pipes, redirections, variables. */
const IS_CODE_SYMBOL = new Uint8Array(128);
for (const c of "=;{}()[]|&<>$\\") IS_CODE_SYMBOL[c.charCodeAt(0)] = 1;
const MAX_CODE_SYMBOL_SHARE = 0.02;

/** An instruction or an action in words, not code: whole words, mostly made of letters alone, and hardly any of code's punctuation. */
function isProse(text: string, words: readonly string[]): boolean {
  if (words.length < PROSE_MIN_WORDS) return false;
  let alphabetic = 0;
  for (const word of words) if (isAlphabetic(word)) alphabetic++;
  if (alphabetic < PROSE_ALPHABETIC_SHARE * words.length) return false;
  let visible = 0;
  let symbols = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 32) continue;
    visible++;
    if (c < 128 && IS_CODE_SYMBOL[c] === 1) symbols++;
  }
  return symbols <= MAX_CODE_SYMBOL_SHARE * visible;
}

// Words are read by the hundred per call: ASCII is told apart by its character codes, and only
// a word with another character is left to the Unicode regular expressions.

/** Whether at least `wanted` of the words hold a letter. */
function hasWordsWithLetters(words: readonly string[], wanted: number): boolean {
  let found = 0;
  for (const word of words) if (hasLetter(word) && ++found >= wanted) return true;
  return false;
}

function hasLetter(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 128) return HAS_LETTER.test(word);
    if (isAsciiLetter(c)) return true;
  }
  return false;
}

/** `ALPHABETIC.test(word)` for a word of `WORD`. */
function isAlphabetic(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 128) return ALPHABETIC.test(word);
    if (!isAsciiLetter(c)) return false;
  }
  return word.length > 0;
}

function isAsciiLetter(c: number): boolean {
  const lower = c | 32;
  return lower >= 97 && lower <= 122;
}

// A quotation opens after a space or a bracket and closes before a space, punctuation or the end,
// so the apostrophe of "don't" opens none.
const QUOTED = /(?<=^|[\s([{:,])(['"`\u2018\u201c])(.+?)(?:\1|[\u2019\u201d])(?=$|[\s.,;:!?)\]}])/g;

function quotedIn(text: string): string[] {
  return [...text.matchAll(QUOTED)].map((m) => m[2]!);
}

const PROSE_MIN_WORDS = 6;
const PROSE_ALPHABETIC_SHARE = 0.7;
const ALPHABETIC = /^\p{L}+$/u;

/** Prose by its characters: letters make up most of what is not whitespace. */
const PROSE_LETTER_SHARE = 0.8;
const LETTER = /\p{L}/u;

export function mostlyLetters(text: string): boolean {
  let letters = 0;
  let visible = 0;
  for (const char of text) {
    if (char.charCodeAt(0) <= 32) continue;
    visible++;
    if (LETTER.test(char)) letters++;
  }
  return visible > 0 && letters >= PROSE_LETTER_SHARE * visible;
}

function pairsOf(text: TextWords): Set<string> {
  if (!text.pairs) {
    text.pairs = new Set();
    for (let k = 1; k < text.sequence.length; k++) text.pairs.add(`${text.sequence[k - 1]} ${text.sequence[k]}`);
  }
  return text.pairs;
}

/** Jaccard similarity of two sets. */
function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  return similarityOf(a, b, sharedCount(a, b));
}

function similarityOf(a: ReadonlySet<string>, b: ReadonlySet<string>, shared: number): number {
  const union = a.size + b.size - shared;
  return union === 0 ? 1 : shared / union;
}

function sharedCount(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  const small = a.size <= b.size ? a : b;
  const large = small === a ? b : a;
  for (const item of small) if (large.has(item)) shared++;
  return shared;
}

const LONG_TEXT_WORDS = 16;
/** A request this long says enough that one extending it asks for the same thing (a shorter one, say a command, may be narrowed by what is added). */
const EXTENDED_MIN_WORDS = 8;
const LONG_TEXT_SIMILARITY = 0.5;
const SHORT_TEXT_SIMILARITY = 0.85;
/** Code with the same vocabulary, rearranged: most of its adjacent pairs of words stay. */
const CODE_PAIR_SIMILARITY = 0.7;
