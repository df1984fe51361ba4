import type { LineReader } from "../../offload/OffloadStore.js";
import type { Measure } from "./measure.js";
import { pairSafeEnd } from "./pairs.js";
import { readBackCutNote } from "./texts.js";

/**
 * Windows of lines for results read back by lines (deepagents' `read_file` of a stored file):
 * how many lines fit the budget, so the window a preview names, and a read back cut to fit,
 * answer within it instead of being stored again.
 */

/** Room a read's header (`@@ lines … @@`) and the budget's note take, in characters. */
const FRAME_CHARS = 400;

export interface LineWindow {
  /** First line, counted from 0 (as `read_file` counts its offset). */
  offset: number;
  /** Lines in the window; at least one, so reading on always moves forward. */
  limit: number;
  /** Set when the window's first line alone is over the budget: read by lines, it shows only its head. */
  lineTooLong?: true;
}

/** The window from the line holding character `from` of `text`: as many lines as fit `budget`. */
export function fittingLineWindow(text: string, from: number, budget: number, measure: Measure): LineWindow {
  const start = from <= 0 ? 0 : text.lastIndexOf("\n", from - 1) + 1;
  const fit = linesThatFit(text, start, budget - frame(measure), measure);
  return {
    offset: countBreaks(text, 0, start),
    limit: Math.max(1, fit),
    ...(fit === 0 && start < text.length ? { lineTooLong: true as const } : {}),
  };
}

/**
 * `text`, a read that starts at line `startLine` (0-based) and is over `budget`, cut to the
 * lines that fit, with a note naming the window to read on with `reader`. A header the reader
 * put first (deepagents' `@@ lines … @@`, and the notices above it) is kept. A first line that
 * alone is over the budget is cut to its head, and the window moves on past it.
 */
export function cutReadBack(
  text: string,
  startLine: number,
  budget: number,
  measure: Measure,
  reader: LineReader,
  readOnInLine?: (shownChars: number) => string,
): string {
  const bodyStart = headerEnd(text);
  const header = text.slice(0, bodyStart);
  const room = budget - frame(measure) - measure.text(header);
  const shown = linesThatFit(text, bodyStart, room, measure);
  const restStart = shown === 0 ? nextLine(text, bodyStart) : lineStartAfter(text, bodyStart, shown);
  const body = shown === 0 ? longLineHead(text, bodyStart, room, measure) : text.slice(bodyStart, restStart - 1);
  const next = startLine + Math.max(shown, 1);
  const rest = linesThatFit(text, restStart, budget - frame(measure), measure);
  const window =
    shown === 0 && readOnInLine
      ? readOnInLine(body.length)
      : reader.window(next, Math.max(1, rest === countLines(text, restStart) ? Math.max(rest, shown) : rest));
  const note = readBackCutNote({
    firstLine: startLine + 1,
    lastLine: startLine + shown,
    longLine: shown === 0 ? body.length : undefined,
    budget,
    unit: measure.unit,
    window,
  });
  return `${header}${body}\n${note}`;
}

/** Whether the first line of a read (after its header) alone is over `budget`, as cutReadBack measures it. */
export function firstLineTooLong(text: string, budget: number, measure: Measure): boolean {
  const bodyStart = headerEnd(text);
  const room = budget - frame(measure) - measure.text(text.slice(0, bodyStart));
  return bodyStart < text.length && linesThatFit(text, bodyStart, room, measure) === 0;
}

/** Where line `line` (0-based) of `text` starts, or undefined past its end. */
export function lineStart(text: string, line: number): number | undefined {
  let at = 0;
  for (let i = 0; i < line; i++) {
    const end = text.indexOf("\n", at);
    if (end === -1) return undefined;
    at = end + 1;
  }
  return at;
}

function frame(measure: Measure): number {
  return measure.unit === "chars" ? FRAME_CHARS : FRAME_CHARS / 4;
}

/** How many whole lines of `text` from `start` fit in `room`, each with its line break. */
function linesThatFit(text: string, start: number, room: number, measure: Measure): number {
  let used = 0;
  let count = 0;
  for (let at = start; at < text.length;) {
    const end = lineEnd(text, at);
    used += measure.text(text.slice(at, end)) + 1;
    if (used > room) break;
    count++;
    at = end + 1;
  }
  return count;
}

/** Where the body starts: after a `@@ … @@` header within the first few lines, else 0. */
function headerEnd(text: string): number {
  let at = 0;
  for (let line = 0; line < 4 && at < text.length; line++) {
    const end = lineEnd(text, at);
    if (/^@@ .* @@$/.test(text.slice(at, end))) return Math.min(end + 1, text.length);
    at = end + 1;
  }
  return 0;
}

function longLineHead(text: string, start: number, room: number, measure: Measure): string {
  const line = text.slice(start, lineEnd(text, start));
  let chars = Math.min(line.length, Math.max(0, Math.floor(measure.unit === "chars" ? room : room * 2)));
  while (chars > 0 && measure.text(line.slice(0, chars)) > room) chars = Math.floor(chars * 0.9);
  return line.slice(0, pairSafeEnd(line, chars));
}

function lineEnd(text: string, at: number): number {
  const end = text.indexOf("\n", at);
  return end === -1 ? text.length : end;
}

function nextLine(text: string, at: number): number {
  return Math.min(lineEnd(text, at) + 1, text.length);
}

function lineStartAfter(text: string, start: number, lines: number): number {
  let at = start;
  for (let i = 0; i < lines; i++) at = lineEnd(text, at) + 1;
  return Math.min(at, text.length + 1);
}

function countLines(text: string, start: number): number {
  return start >= text.length ? 0 : countBreaks(text, start, text.length) + 1;
}

function countBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) count++;
  return count;
}
