import { bytesLookBinary, nextRun, signatureIn, type BinaryRegion } from "./region.js";
import { UNKNOWN_LABEL } from "./texts.js";

/**
 * Binary data written as hexadecimal: hex dumps (`xxd`, `hexdump -C`, `od -A x -t x1`, plain
 * rows of byte pairs) and long unbroken hex strings (`89504e47...`). Hashes and ids (a SHA-512
 * is 128 digits) stay far below the lengths that count.
 */

/** Consecutive dump lines that make a dump; fewer (a header peeked at) are left to the model. */
export const MIN_DUMP_LINES = 4;
/** An unbroken hex string must be this long, and start with a file signature... */
export const MIN_HEX_RUN = 256;
/** ...or be this long and decode to binary bytes. */
export const MIN_UNKNOWN_HEX = 4096;
/** Longest line read as a dump line; longer lines are prose or data, not `xxd` output. */
const MAX_DUMP_LINE = 400;

export function findHexRegions(text: string): BinaryRegion[] {
  return [...dumpRegions(text), ...hexRunRegions(text)];
}

function dumpRegions(text: string): BinaryRegion[] {
  const out: BinaryRegion[] = [];
  let blockStart = -1;
  let blockEnd = -1;
  let lines = 0;
  let bytes: number[] = [];
  let count = 0;
  // Rows of decimal numbers parse as hex too; real binary has a digit a-f within a few bytes.
  let letters = false;
  const close = () => {
    if (blockStart !== -1 && letters && (lines >= MIN_DUMP_LINES || count >= MIN_HEX_RUN / 2)) out.push(dumpRegion(blockStart, blockEnd, bytes, count));
    blockStart = -1;
    lines = 0;
    bytes = [];
    count = 0;
    letters = false;
  };
  let position = 0;
  while (position <= text.length) {
    let end = text.indexOf("\n", position);
    if (end === -1) end = text.length;
    const line = end - position <= MAX_DUMP_LINE || lines === 0 ? text.slice(position, end) : "";
    const parsed = line && DUMP_START.test(line) ? parseDumpLine(line) : undefined;
    if (parsed) {
      if (blockStart === -1) blockStart = position;
      blockEnd = end;
      lines++;
      count += parsed.length;
      letters ||= parsed.some((b) => b >> 4 >= 10 || (b & 15) >= 10);
      if (bytes.length < 64) bytes.push(...parsed.slice(0, 64));
    } else if (!(blockStart !== -1 && line.trim() === "*")) close();
    if (end === text.length) break;
    position = end + 1;
  }
  close();
  return out;
}

function dumpRegion(start: number, end: number, head: number[], count: number): BinaryRegion {
  // `hexdump` without -C prints 16-bit little-endian words: try the bytes swapped too.
  const swapped = head.map((_, i) => head[i % 2 === 0 ? i + 1 : i - 1] ?? 0);
  const signature = signatureIn(head, 3) ?? signatureIn(swapped, 4);
  return {
    start,
    end,
    label: signature?.label ?? UNKNOWN_LABEL,
    mediaType: signature?.mediaType,
    evidence: "hex-dump",
    form: "a hex dump",
    bytes: count,
  };
}

const HEX = /^[0-9a-fA-F]+$/;
/** What every dump line starts with (an offset or a first group, then a space): skips prose lines at once. */
const DUMP_START = /^\s*[0-9a-fA-F]{2,16}:? +[0-9a-fA-F]{2}/;

/**
 * The bytes of one dump line, or undefined: an optional offset (`00000010:`, `00000010`), then
 * at least 8 bytes as groups of 2, 4 or 8 hex digits, then optionally the ASCII column.
 */
export function parseDumpLine(line: string): number[] | undefined {
  const tokens = line.trim().split(/( +)/);
  let i = 0;
  const first = tokens[0] ?? "";
  const offset = first.endsWith(":") ? first.slice(0, -1) : first;
  if (HEX.test(offset) && (first.endsWith(":") ? offset.length >= 4 : offset.length >= 6) && offset.length <= 16) i = 2;
  const bytes: number[] = [];
  for (; i < tokens.length; i += 2) {
    const token = tokens[i]!;
    if (!HEX.test(token) || ![2, 4, 8].includes(token.length)) break;
    for (let j = 0; j < token.length; j += 2) bytes.push(parseInt(token.slice(j, j + 2), 16));
    const gap = tokens[i + 1];
    if (gap !== undefined && gap.length > 2) break;
  }
  return bytes.length >= 8 ? bytes : undefined;
}

function hexRunRegions(text: string): BinaryRegion[] {
  const out: BinaryRegion[] = [];
  for (let start = nextHexRun(text, 0); start !== -1; ) {
    let end = start;
    while (end < text.length && isHexChar(text.charCodeAt(end))) end++;
    const region = judgeHexRun(text, start, end);
    if (region) out.push(region);
    start = nextHexRun(text, end + 1);
  }
  return out;
}

function judgeHexRun(text: string, start: number, end: number): BinaryRegion | undefined {
  // Part of a longer word (base64, an identifier): not a hex string of its own.
  if (isWordChar(text.charCodeAt(start - 1)) && !(start >= 2 && text.slice(start - 2, start).toLowerCase() === "0x")) return undefined;
  if (isWordChar(text.charCodeAt(end))) return undefined;
  const bytes = hexBytes(text.slice(start, Math.min(end, start + 1024)));
  const signature = signatureIn(bytes, 4);
  const length = end - start;
  if (!signature && (length < MIN_UNKNOWN_HEX || !bytesLookBinary(Uint8Array.from(bytes)))) return undefined;
  return {
    start: start >= 2 && text.slice(start - 2, start).toLowerCase() === "0x" ? start - 2 : start,
    end,
    label: signature?.label ?? UNKNOWN_LABEL,
    mediaType: signature?.mediaType,
    evidence: "hex",
    form: "hexadecimal",
    bytes: Math.floor(length / 2),
  };
}

function hexBytes(hex: string): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < hex.length; i += 2) out.push(parseInt(hex.slice(i, i + 2), 16));
  return out;
}

/** Start of the next run of at least MIN_HEX_RUN hex digits (see nextRun). */
function nextHexRun(text: string, from: number): number {
  return nextRun(text, from, MIN_HEX_RUN, isHexChar);
}

export function isHexChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

/** Letters, digits and base64's `+ / _ -`: a hex run touching one is part of something longer. */
function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 43 || code === 47 || code === 95 || code === 45;
}
