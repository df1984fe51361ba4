import type { MagicSignature } from "./magic.js";
import { bytesLookBinary, nextRun, signatureIn, someByteStandsOut, type BinaryRegion } from "./region.js";
import { UNKNOWN_LABEL } from "./texts.js";

/**
 * Binary data written as hexadecimal: hex dumps (`xxd`, `hexdump -C`, `od -A x -t x1`, plain
 * rows of byte pairs), long unbroken hex strings (`89504e47...`) and the same wrapped over lines
 * (`xxd -p`, a hex string wrapped at any width). Hashes and ids (a SHA-512 is 128 digits) stay
 * far below the lengths that count, and a list of them is told from a payload by its bytes.
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
  const block: DumpBlock = { start: -1, end: -1, lines: 0, bytes: [], count: 0, letters: false };
  let position = 0;
  while (position <= text.length) {
    let end = text.indexOf("\n", position);
    if (end === -1) end = text.length;
    const line = end - position <= MAX_DUMP_LINE || block.lines === 0 ? text.slice(position, end) : "";
    const parsed = line && DUMP_START.test(line) ? parseDumpLine(line) : undefined;
    if (parsed) {
      if (block.start === -1) block.start = position;
      block.end = end;
      block.lines++;
      block.count += parsed.length;
      block.letters ||= parsed.some((b) => b >> 4 >= 10 || (b & 15) >= 10);
      if (block.bytes.length < 64) block.bytes.push(...parsed.slice(0, 64));
    } else if (!(block.start !== -1 && line.trim() === "*")) closeDump(block, out);
    if (end === text.length) break;
    position = end + 1;
  }
  closeDump(block, out);
  return out;
}

/** The dump lines read so far. */
interface DumpBlock {
  start: number;
  end: number;
  lines: number;
  bytes: number[];
  count: number;
  /** Rows of decimal numbers parse as hex too; real binary has a digit a-f within a few bytes. */
  letters: boolean;
}

/** Ends `block`: a region when it is a dump of binary data; `block` starts over. */
function closeDump(block: DumpBlock, out: BinaryRegion[]): void {
  if (block.start !== -1 && block.letters && (block.lines >= MIN_DUMP_LINES || block.count >= MIN_HEX_RUN / 2))
    out.push(dumpRegion(block.start, block.end, block.bytes, block.count));
  block.start = -1;
  block.lines = 0;
  block.bytes = [];
  block.count = 0;
  block.letters = false;
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
  for (let start = nextHexRun(text, 0); start !== -1;) {
    const block = wrappedBlock(text, start);
    const region = block.lines.length > 1 ? judgeWrapped(text, block) : judgeHexRun(text, start, block.end);
    if (region) out.push(region);
    start = nextHexRun(text, block.end + 1);
  }
  return out;
}

function judgeHexRun(text: string, start: number, end: number): BinaryRegion | undefined {
  const length = end - start;
  if (length < MIN_HEX_RUN || !standsAlone(text, start, end)) return undefined;
  const bytes = hexBytes(text.slice(start, Math.min(end, start + 1024)));
  const signature = signatureIn(bytes, 4);
  if (!signature && (length < MIN_UNKNOWN_HEX || !bytesLookBinary(Uint8Array.from(bytes)))) return undefined;
  return hexRegion(hasPrefix0x(text, start) ? start - 2 : start, end, signature, length);
}

/** Part of a longer word (base64, an identifier) is not a hex string of its own; `0x` may lead it. */
function standsAlone(text: string, start: number, end: number): boolean {
  return (!isWordChar(text.charCodeAt(start - 1)) || hasPrefix0x(text, start)) && !isWordChar(text.charCodeAt(end));
}

function hasPrefix0x(text: string, start: number): boolean {
  return start >= 2 && text.slice(start - 2, start).toLowerCase() === "0x";
}

function hexRegion(start: number, end: number, signature: MagicSignature | undefined, digits: number): BinaryRegion {
  return {
    start,
    end,
    label: signature?.label ?? UNKNOWN_LABEL,
    mediaType: signature?.mediaType,
    evidence: "hex",
    form: "hexadecimal",
    bytes: Math.floor(digits / 2),
  };
}

/** Shortest line of hex read as part of a wrapped payload (`xxd -p` writes 60, wrapping tools 32 to 128). */
export const MIN_WRAPPED_LINE = 16;
/** A line break between wrapped lines: real, or escaped inside a JSON string. */
const BREAKS = ["\r\n", "\n", "\\r\\n", "\\n"];

interface HexBlock {
  end: number;
  /** `[start, end)` of each line's digits. */
  lines: Array<[number, number]>;
}

/**
 * The run at `start`, continued over line breaks while each next line is hex of the first line's
 * width and nothing else (`xxd -p`, a hex string wrapped at any width, CRLF or escaped breaks);
 * a shorter line ends the block as its last.
 */
function wrappedBlock(text: string, start: number): HexBlock {
  let end = hexRunEnd(text, start);
  const width = end - start;
  const lines: Array<[number, number]> = [[start, end]];
  if (width < MIN_WRAPPED_LINE || isWordChar(text.charCodeAt(start - 1))) return { end, lines };
  for (;;) {
    let next = lineBreakAt(text, end);
    if (next === -1) break;
    while (text[next] === " " || text[next] === "\t") next++;
    const lineEnd = hexRunEnd(text, next);
    if (
      lineEnd === next ||
      lineEnd - next > width ||
      !(lineEnd >= text.length || lineBreakAt(text, lineEnd) !== -1 || text[lineEnd] === '"')
    )
      break;
    lines.push([next, lineEnd]);
    end = lineEnd;
    if (lineEnd - next < width) break;
  }
  return { end, lines };
}

function lineBreakAt(text: string, at: number): number {
  for (const brk of BREAKS) if (text.startsWith(brk, at)) return at + brk.length;
  return -1;
}

function hexRunEnd(text: string, start: number): number {
  let end = start;
  while (end < text.length && isHexChar(text.charCodeAt(end))) end++;
  return end;
}

/** Bytes decoded for the judgement of a wrapped block: enough for its byte statistics. */
const WRAPPED_SAMPLE = 8192;

/**
 * A wrapped block is binary when it starts with a file signature, or is long and decodes to
 * structured binary bytes. A list of hashes or ids one per line looks the same, but its bytes are
 * uniformly random: no byte value stands out, where real binary repeats some (NUL padding,
 * opcodes, headers). Digits alone are a column of numbers.
 */
function judgeWrapped(text: string, block: HexBlock): BinaryRegion | undefined {
  const digits = block.lines.reduce((sum, [start, end]) => sum + end - start, 0);
  if (digits < MIN_HEX_RUN || !standsAlone(text, block.lines[0]![0], block.end)) return undefined;
  let sample = "";
  for (const [start, end] of block.lines) {
    if (sample.length >= WRAPPED_SAMPLE) break;
    sample += text.slice(start, end);
  }
  if (!/[a-fA-F]/.test(sample)) return undefined;
  const bytes = Uint8Array.from(hexBytes(sample.slice(0, WRAPPED_SAMPLE)));
  const binary = bytesLookBinary(bytes.subarray(0, 512));
  // A block starts where a file can: a weak (3-byte) signature counts there, given binary bytes after it (JPEG, gzip).
  const signature = signatureIn(bytes, 4) ?? (binary ? signatureIn(bytes, 3) : undefined);
  if (!signature && (digits < MIN_UNKNOWN_HEX || !binary || !someByteStandsOut(bytes))) return undefined;
  return hexRegion(block.lines[0]![0], block.end, signature, digits);
}

function hexBytes(hex: string): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < hex.length; i += 2) out.push(parseInt(hex.slice(i, i + 2), 16));
  return out;
}

/**
 * What a hex dump region needs: a line that DUMP_START accepts, that is the same pattern at the
 * start of the text or after a "\n", its leading whitespace kept within the line.
 */
export const DUMP_LINE_HINT = /(?:^|\n)[^\S\n]*[0-9a-fA-F]{2,16}:? +[0-9a-fA-F]{2}/;

/**
 * What follows the first line of a wrapped hex block (see wrappedBlock): a line break, then the
 * next line's hex. Sticky: tried at the end of a line.
 */
export const WRAPPED_LINE_AFTER = /(?:\r?\n|\\r\\n|\\n)[ \t]*[0-9a-fA-F]/y;

/** Start of the next run of hex digits long enough to be one line of a wrapped payload (see nextRun). */
function nextHexRun(text: string, from: number): number {
  return nextRun(text, from, MIN_WRAPPED_LINE, isHexChar);
}

export function isHexChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

/** Letters, digits and base64's `+ / _ -`: a hex run touching one is part of something longer. */
function isWordChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 43 ||
    code === 47 ||
    code === 95 ||
    code === 45
  );
}
