import { RE2JS } from "re2js";

/**
 * Search patterns from the model, run so that no pattern can hold the process: regular
 * expressions go to re2js (RE2's automata: time linear in the text, whatever the pattern), text
 * that is not a valid RE2 pattern is searched literally, and a scan stops at a deadline and says
 * where to continue. `(a+)+$` on 1.75 KB, which froze the native engine for more than 10 s,
 * answers here in milliseconds.
 */

/** A pattern ready to search lines with. */
export interface LinePattern {
  /** Read by the model: `/regex/`, or the literal text in quotes. */
  display: string;
  /** The text searched for, when the pattern is searched literally. */
  literal: string | undefined;
  /** Read by the model: why a pattern was searched as plain text, when it asked for more. */
  note?: string;
  /** Index of the first match in `text`, or -1. */
  indexIn(text: string): number;
  /**
   * Longest text matched in one call. Matching costs about the pattern's program size times the
   * text's length, so big programs match shorter pieces (long lines in overlapping pieces) and
   * the deadline is checked between pieces.
   */
  pieceChars: number;
}

/** A pattern the search refuses, with the text the model reads. */
export interface RefusedPattern {
  refused: string;
}

/** Longest pattern accepted, in characters. */
export const MAX_PATTERN_CHARS = 1000;
/** Largest RE2 program accepted: every useful search fits in far less; `(\w*\W*){999}` is 6,000. */
export const MAX_PROGRAM_SIZE = 400;
/** Program size times characters matched in one call: about 10 ms of the engine's worst case. */
const PIECE_WORK = 250_000;
const MIN_PIECE = 500;
const MAX_PIECE = 50_000;

/** The pattern as a linear-time regular expression, as literal text when it is not one, or a refusal. */
export function compileLinePattern(pattern: string): LinePattern | RefusedPattern {
  if (pattern.length > MAX_PATTERN_CHARS) {
    return { refused: patternRefusedText(`it has ${pattern.length} characters, more than the ${MAX_PATTERN_CHARS} allowed`) };
  }
  if (!/[\\^$.|?*+()[\]{}]/.test(pattern)) return literalPattern(pattern);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch {
    return { ...literalPattern(pattern), note: "it is not a valid RE2 pattern (RE2 has no lookaround or backreferences), so it was searched as plain text" };
  }
  const size = compiled.programSize();
  if (size > MAX_PROGRAM_SIZE) {
    return { refused: patternRefusedText(`it compiles to ${size} steps, more than the ${MAX_PROGRAM_SIZE} allowed; use smaller repeat counts or fewer alternatives`) };
  }
  return {
    display: `/${pattern}/`,
    literal: undefined,
    indexIn: (text) => {
      const matcher = compiled.matcher(text);
      return matcher.find() ? matcher.start() : -1;
    },
    pieceChars: Math.max(MIN_PIECE, Math.min(MAX_PIECE, Math.floor(PIECE_WORK / Math.max(size, 1)))),
  };
}

function literalPattern(text: string): LinePattern {
  return { display: JSON.stringify(text), literal: text, indexIn: (line) => line.indexOf(text), pieceChars: Number.POSITIVE_INFINITY };
}

/** Read by the model when its pattern is refused. */
export function patternRefusedText(why: string): string {
  return `The pattern was not run: ${why}. Search for a shorter, simpler pattern (RE2 syntax, or plain text).`;
}

export function isRefused(pattern: LinePattern | RefusedPattern): pattern is RefusedPattern {
  return "refused" in pattern;
}

/** One matching line. */
export interface LineMatch {
  /** 1-based line number in the whole result. */
  lineNumber: number;
  /** Character offset of the line's start in the whole result. */
  position: number;
  line: string;
  /** Where the match starts in `line`. */
  matchAt: number;
  /** Offset of the next line's start. */
  nextLine: number;
}

/** What a scan found. */
export interface LineSearch {
  pattern: LinePattern;
  /** Where the scan began. */
  from: number;
  /** Length of the whole result. */
  total: number;
  /** Matches in order, as many as `keepChars` of lines hold (each line counted up to the clip length). */
  matches: LineMatch[];
  /** Matching lines counted, shown or not. */
  count: number;
  /** Set when the deadline stopped the scan: the offset of the first line not searched. */
  stoppedAt: number | undefined;
  /** The time the scan was allowed, in ms. */
  timeLimitMs: number;
}

/** Characters kept of a line in the answer; longer ones are cut around their match. */
export const LINE_CHARS = 500;

/**
 * The lines of `text` (all of the stored result) that match, from character `from` on, until
 * the end or `timeLimitMs`. Lines are kept while their clipped lengths add up to `keepChars`;
 * the rest are only counted.
 */
export function searchLines(text: string, pattern: LinePattern, from: number, keepChars: number, timeLimitMs: number): LineSearch {
  const deadline = performance.now() + timeLimitMs;
  const start = Math.min(Math.max(0, Math.floor(from)), text.length);
  const result: LineSearch = { pattern, from: start, total: text.length, matches: [], count: 0, stoppedAt: undefined, timeLimitMs };
  let lineNumber = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < start; i = text.indexOf("\n", i + 1)) lineNumber++;

  let kept = 0;
  let position = start;
  let checks = 0;
  while (position <= text.length) {
    if ((++checks & 15) === 0 && performance.now() > deadline) {
      result.stoppedAt = position;
      break;
    }
    if (pattern.literal !== undefined) {
      // Jump straight to the next line holding the text; the lines between cannot match.
      const hit = text.indexOf(pattern.literal, position);
      if (hit === -1) break;
      const lineStart = hit === 0 ? 0 : text.lastIndexOf("\n", hit - 1) + 1;
      for (let i = text.indexOf("\n", position); i !== -1 && i < lineStart; i = text.indexOf("\n", i + 1)) lineNumber++;
      position = Math.max(position, lineStart);
    }
    let end = text.indexOf("\n", position);
    if (end === -1) end = text.length;
    const matchAt = matchInLine(text, position, end, pattern, deadline);
    if (matchAt === "deadline") {
      result.stoppedAt = position;
      break;
    }
    if (matchAt !== -1) {
      result.count++;
      if (kept < keepChars) {
        const line = text.slice(position, Math.min(end, position + Math.max(LINE_CHARS * 2, matchAt + LINE_CHARS)));
        result.matches.push({ lineNumber, position, line: clipLine(line, end - position, matchAt), matchAt, nextLine: end + 1 });
        kept += Math.min(end - position, LINE_CHARS) + 12;
      }
    }
    if (end === text.length) break;
    position = end + 1;
    lineNumber++;
  }
  return result;
}

/** Index of the first match in text[start, end), or -1; a long line is matched in overlapping pieces. */
function matchInLine(text: string, start: number, end: number, pattern: LinePattern, deadline: number): number | "deadline" {
  const piece = pattern.pieceChars;
  if (end - start <= piece) return pattern.indexIn(text.slice(start, end));
  const overlap = Math.floor(piece / 4);
  for (let at = start; at < end; at += piece - overlap) {
    if (performance.now() > deadline) return "deadline";
    const found = pattern.indexIn(text.slice(at, Math.min(end, at + piece)));
    if (found !== -1) return at - start + found;
    if (at + piece >= end) break;
  }
  return -1;
}

/** A line cut to LINE_CHARS around its match, with "…" where it was cut. */
function clipLine(head: string, fullLength: number, matchAt: number): string {
  if (fullLength <= LINE_CHARS) return head;
  const begin = Math.max(0, Math.min(matchAt - LINE_CHARS / 2, fullLength - LINE_CHARS));
  const end = begin + LINE_CHARS;
  return `${begin > 0 ? "…" : ""}${head.slice(begin, end)}${end < fullLength ? "…" : ""}`;
}
