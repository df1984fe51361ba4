import { RE2JS } from "re2js";
import {
  NOT_RE2_NOTE,
  patternRefusedText,
  patternTooLongClause,
  programTooLargeClause,
  repeatsTooLargeClause,
} from "./texts.js";

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
  /** A search over `chunk` (whole lines): the first match at or after an index, or -1. `^` and `$` match at line breaks. */
  scanner(chunk: string): (from: number) => number;
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
/** Program size times characters matched in one call: about 5 ms of the engine's worst case. */
const PIECE_WORK = 125_000;
const MIN_PIECE = 500;
const MAX_PIECE = 50_000;

/** The pattern as a linear-time regular expression, as literal text when it is not one, or a refusal. */
export function compileLinePattern(pattern: string): LinePattern | RefusedPattern {
  if (pattern.length > MAX_PATTERN_CHARS) {
    return { refused: patternRefusedText(patternTooLongClause(pattern.length, MAX_PATTERN_CHARS)) };
  }
  if (!/[\\^$.|?*+()[\]{}]/.test(pattern)) return literalPattern(pattern);
  // Compiling a huge program costs tens of ms by itself: refuse it from the pattern's text first (the estimate is below the real size).
  const estimate = estimateProgramSize(pattern);
  if (estimate > MAX_PROGRAM_SIZE) {
    return { refused: patternRefusedText(repeatsTooLargeClause(estimate, MAX_PROGRAM_SIZE)) };
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, RE2JS.MULTILINE);
  } catch {
    return { ...literalPattern(pattern), note: NOT_RE2_NOTE };
  }
  const size = compiled.programSize();
  if (size > MAX_PROGRAM_SIZE) {
    return { refused: patternRefusedText(programTooLargeClause(size, MAX_PROGRAM_SIZE)) };
  }
  return {
    display: `/${pattern}/`,
    literal: undefined,
    indexIn: (text) => {
      const matcher = compiled.matcher(text);
      return matcher.find() ? matcher.start() : -1;
    },
    scanner: (chunk) => {
      const matcher = compiled.matcher(chunk);
      return (from) => (from <= chunk.length && matcher.find(from) ? matcher.start() : -1);
    },
    pieceChars: Math.max(MIN_PIECE, Math.min(MAX_PIECE, Math.floor(PIECE_WORK / Math.max(size, 1)))),
  };
}

/**
 * About how many instructions RE2 compiles `pattern` to, read from its text: every atom counts
 * one, times the counts of the `{n,m}` repeats around it. Close enough to refuse
 * `(a?){1000}a{1000}` before paying for its compilation; exact sizes are checked after.
 */
export function estimateProgramSize(pattern: string): number {
  const stack: number[] = [0];
  let last = 0; // size of the atom just read, for a repeat that follows it
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      i++;
      if (pattern[i] === "p" || pattern[i] === "P")
        i = pattern[i + 1] === "{" ? Math.max(i, pattern.indexOf("}", i)) : i + 1;
      last = 1;
    } else if (c === "[") {
      let j = i + 1;
      if (pattern[j] === "^") j++;
      if (pattern[j] === "]") j++;
      while (j < pattern.length && pattern[j] !== "]") j += pattern[j] === "\\" ? 2 : 1;
      i = j;
      last = 1;
    } else if (c === "(") {
      stack.push(0);
      last = 0;
      continue;
    } else if (c === ")") {
      last = stack.length > 1 ? stack.pop()! : 0;
    } else if (c === "{") {
      const repeat = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      if (repeat) {
        const times = Math.max(
          Number(repeat[1]),
          repeat[2] ? Number(repeat[2]) : repeat[2] === "" ? Number(repeat[1]) + 1 : 1,
          1,
        );
        stack[stack.length - 1]! += last * (times - 1);
        last *= times;
        i += repeat[0].length - 1;
        continue;
      }
      last = 1;
    } else if ("*+?|^$".includes(c)) {
      stack[stack.length - 1]! += 1;
      continue;
    } else last = 1;
    stack[stack.length - 1]! += last;
  }
  return stack.reduce((sum, size) => sum + size, 0);
}

function literalPattern(text: string): LinePattern {
  return {
    display: JSON.stringify(text),
    literal: text,
    indexIn: (line) => line.indexOf(text),
    scanner: (chunk) => (from) => chunk.indexOf(text, from),
    pieceChars: Number.POSITIVE_INFINITY,
  };
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
export function searchLines(
  text: string,
  pattern: LinePattern,
  from: number,
  keepChars: number,
  timeLimitMs: number,
): LineSearch {
  const deadline = performance.now() + timeLimitMs;
  const start = lineStartAt(text, Math.min(Math.max(0, Math.floor(from)), text.length));
  const result: LineSearch = {
    pattern,
    from: start,
    total: text.length,
    matches: [],
    count: 0,
    stoppedAt: undefined,
    timeLimitMs,
  };
  let lineNumber = 1 + countBreaks(text, 0, start);
  let kept = 0;
  const record = (lineStart: number, lineEnd: number, matchAt: number) => {
    result.count++;
    if (kept >= keepChars) return;
    const head = text.slice(lineStart, Math.min(lineEnd, lineStart + Math.max(LINE_CHARS * 2, matchAt + LINE_CHARS)));
    result.matches.push({
      lineNumber,
      position: lineStart,
      line: clipLine(head, lineEnd - lineStart, matchAt),
      matchAt,
      nextLine: lineEnd + 1,
    });
    kept += Math.min(lineEnd - lineStart, LINE_CHARS) + 12;
  };

  // Text is searched in chunks of whole lines (a chunk per engine call, sized to the pattern's
  // cost), so the deadline is checked often; a line longer than a chunk is searched in pieces.
  let position = start;
  while (
    position < text.length ||
    (position === text.length && (position === 0 || text.charCodeAt(position - 1) === 10))
  ) {
    if (performance.now() > deadline) {
      result.stoppedAt = position;
      break;
    }
    let chunkEnd = Math.min(text.length, position + pattern.pieceChars);
    if (chunkEnd < text.length) chunkEnd = text.lastIndexOf("\n", chunkEnd - 1) + 1;
    if (chunkEnd <= position) {
      const lineEnd = lineEndAt(text, position);
      const matchAt = matchInLine(text, position, lineEnd, pattern, deadline);
      if (matchAt === "deadline") {
        result.stoppedAt = position;
        break;
      }
      if (matchAt !== -1) record(position, lineEnd, matchAt);
      position = lineEnd + 1;
      lineNumber++;
      continue;
    }
    const chunk = text.slice(position, chunkEnd);
    const next = pattern.scanner(chunk);
    let at = 0; // next line start within the chunk
    for (let hit = next(0); hit !== -1; hit = next(at)) {
      // An empty match after the chunk's last line break belongs to the next chunk.
      if (hit >= chunk.length && chunkEnd < text.length) break;
      const lineStart = hit === 0 ? 0 : chunk.lastIndexOf("\n", hit - 1) + 1;
      lineNumber += countBreaks(chunk, at, lineStart);
      const lineEnd = lineEndAt(chunk, hit);
      record(position + lineStart, position + lineEnd, hit - lineStart);
      at = lineEnd + 1;
      lineNumber++;
      if (at > chunk.length) break;
      if ((result.count & 255) === 0 && performance.now() > deadline) break;
    }
    if (at > chunk.length) {
      position += at;
      continue;
    }
    if (performance.now() > deadline && at > 0 && at < chunk.length) {
      result.stoppedAt = position + at;
      break;
    }
    lineNumber += countBreaks(chunk, at, chunk.length);
    position = chunkEnd;
    if (chunkEnd === text.length) break;
  }
  return result;
}

function lineStartAt(text: string, at: number): number {
  return at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
}

function lineEndAt(text: string, at: number): number {
  const end = text.indexOf("\n", at);
  return end === -1 ? text.length : end;
}

/** Line breaks in text[from, to). */
function countBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

/** Index of the first match in text[start, end), or -1; a long line is matched in overlapping pieces. */
function matchInLine(
  text: string,
  start: number,
  end: number,
  pattern: LinePattern,
  deadline: number,
): number | "deadline" {
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
