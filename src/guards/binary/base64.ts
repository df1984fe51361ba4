import { decodeBase64Head, MAGIC_SIGNATURES, type MagicSignature } from "./magic.js";
import { isTextMediaType } from "./media.js";
import { bytesLookBinary, fixedBytes, nextRun, signatureIn, type BinaryRegion } from "./region.js";
import { labelForMediaType, UNKNOWN_LABEL } from "./texts.js";

/**
 * Base64 payloads anywhere in a text: data URLs, and long base64 runs (wrapped over lines as
 * MIME and PEM wrap them, inside JSON strings where line breaks are `\n` escapes, or glued to a
 * prefix such as `payload_iVBOR...`). The whole text is scanned, in time linear in its length:
 * prose costs a fraction of a read per character (see nextLongRun).
 */

/** A run must be at least this long to be an embedded file. */
export const MIN_BASE64_RUN = 64;
/** A run without a signature counts as binary from this length, when it decodes to binary bytes. */
export const MIN_UNKNOWN_BASE64 = 4096;
/** How far into a run a glued prefix (`payload_`) may reach. */
const PREFIX_REACH = 128;
/** "=" characters of padding counted after a run (a data URL's payload is that long with them). */
export const MAX_PADDING = 2;

const DATA_URL = /data:([a-z0-9][\w.+-]*\/[\w.+-]+)?(?:;[\w.+=-]+)*;base64,/gi;

export function findBase64Regions(text: string): BinaryRegion[] {
  const regions = dataUrlRegions(text);
  let covered = 0;
  const urls = regions.length;
  for (let start = nextLongRun(text, 0); start !== -1;) {
    const block = wrappedBlock(text, start);
    // Inside a data URL's payload (regions in order: skip those that end before `start`). Written
    // out, not as a closure: keepNames would name a closure made per result.
    let insideUrl = false;
    if (urls > 0) {
      while (covered < regions.length && regions[covered]!.end <= start) covered++;
      insideUrl = covered < regions.length && regions[covered]!.start <= start;
    }
    if (!insideUrl) {
      const region = judgeBlock(text, block.start, block.end, block.firstLineEnd);
      if (region) regions.push(region);
    }
    start = nextLongRun(text, block.end + 1);
  }
  return regions;
}

function dataUrlRegions(text: string): BinaryRegion[] {
  const out: BinaryRegion[] = [];
  DATA_URL.lastIndex = 0;
  for (let m = DATA_URL.exec(text); m; m = DATA_URL.exec(text)) {
    const mediaType = m[1]?.toLowerCase();
    const payload = m.index + m[0].length;
    const end = skipPadding(text, runEnd(text, payload));
    if (end - payload < MIN_BASE64_RUN || (mediaType && isTextMediaType(mediaType))) continue;
    const signature = signatureIn(decodeBase64Head(text.slice(payload, payload + 64)), 2);
    out.push({
      start: m.index,
      end,
      label: signature?.label ?? (mediaType ? labelForMediaType(mediaType) : UNKNOWN_LABEL),
      mediaType: signature?.mediaType ?? mediaType,
      evidence: signature ? "magic-number-in-base64" : "data-url",
      form: "a base64 data URL",
      bytes: Math.floor(((end - payload) * 3) / 4),
    });
    DATA_URL.lastIndex = end;
  }
  return out;
}

interface Block {
  start: number;
  end: number;
  /** End of the first line, where a wrapped block's first line ends. */
  firstLineEnd: number;
}

/** A line break between wrapped base64 lines: real, or escaped inside a JSON string. */
const BREAKS = ["\r\n", "\n", "\\r\\n", "\\n"];

/**
 * The run starting at `start`, continued over line breaks while the next line is base64 no
 * longer than the first (the last line of a wrapped payload is shorter). Whitespace that
 * indents the next line (MIME in an indented document) is allowed.
 */
function wrappedBlock(text: string, start: number): Block {
  const firstLineEnd = runEnd(text, start);
  const width = firstLineEnd - start;
  let end = firstLineEnd;
  if (width >= 40) {
    for (;;) {
      const padded = skipPadding(text, end);
      const afterBreak = lineBreakAt(text, padded);
      if (afterBreak === -1) break;
      let next = afterBreak;
      while (next < text.length && (text[next] === " " || text[next] === "\t")) next++;
      const lineEnd = runEnd(text, next);
      if (lineEnd - next < 4 || lineEnd - next > width) break;
      // A wrapped line is a whole line: "Revenue grew" after a payload is prose, not its last line.
      const after = skipPadding(text, lineEnd);
      if (!(after >= text.length || lineBreakAt(text, after) !== -1 || text[after] === '"')) break;
      end = lineEnd;
      if (lineEnd - next < width) break;
    }
  }
  return { start, end: skipPadding(text, end), firstLineEnd };
}

function lineBreakAt(text: string, at: number): number {
  for (const brk of BREAKS) if (text.startsWith(brk, at)) return at + brk.length;
  return -1;
}

/** A region for the block if it holds a file: a known signature where a file can start, or enough binary bytes. */
function judgeBlock(text: string, start: number, end: number, firstLineEnd: number): BinaryRegion | undefined {
  const found = signatureStart(text, start, firstLineEnd);
  if (found) {
    return {
      start: found.at,
      end,
      label: found.signature.label,
      mediaType: found.signature.mediaType,
      evidence: "magic-number-in-base64",
      form: "base64",
      bytes: Math.floor(((end - found.at) * 3) / 4),
    };
  }
  const length = end - start;
  if (length < MIN_UNKNOWN_BASE64 || !mixedAlphabet(text, start, Math.min(end, start + 512))) return undefined;
  if (!bytesLookBinary(decodeBase64Head(text.slice(start, firstLineEnd).slice(0, 1024), 768))) return undefined;
  return {
    start,
    end,
    label: UNKNOWN_LABEL,
    mediaType: undefined,
    evidence: "base64-binary",
    form: "base64",
    bytes: Math.floor((length * 3) / 4),
  };
}

/**
 * Where in the first line a file starts: at the run's start, right after a `_` or `-` that glues
 * a prefix to it (`payload_iVBOR...`), or wherever a strong signature's base64 form appears
 * within the reach of a prefix. A weak signature (3 fixed bytes) needs a long payload after it.
 */
function signatureStart(
  text: string,
  start: number,
  lineEnd: number,
): { at: number; signature: MagicSignature } | undefined {
  const reach = Math.min(lineEnd - 16, start + PREFIX_REACH);
  // "edge": where a file can start (the run's start, after a glued prefix); "inside": anywhere else.
  const candidates = new Map<number, "edge" | "inside">([[start, "edge"]]);
  for (let i = start + 1; i <= reach; i++) {
    const before = text.charCodeAt(i - 1);
    if (before === 95 || before === 45) candidates.set(i, "edge");
  }
  const head = text.slice(start, Math.min(lineEnd, start + PREFIX_REACH + 16));
  for (const prefix of STRONG_PREFIXES) {
    for (let i = head.indexOf(prefix); i !== -1; i = head.indexOf(prefix, i + 1))
      if (!candidates.has(start + i)) candidates.set(start + i, "inside");
  }
  for (const at of [...candidates.keys()].sort((a, b) => a - b)) {
    const signature = signatureIn(decodeBase64Head(text.slice(at, at + 64)), candidates.get(at) === "edge" ? 3 : 5);
    if (!signature) continue;
    if (fixedBytes(signature) < 4 && lineEnd - at < 128) continue;
    return { at, signature };
  }
  return undefined;
}

/**
 * The base64 text of each signature's first whole 3-byte groups, for those with at least 5 fixed
 * bytes at offset 0 (a prefix with no separator before the payload is found by these).
 */
const STRONG_PREFIXES: readonly string[] = [
  ...new Set(
    MAGIC_SIGNATURES.filter(
      (s) => (s.offset ?? 0) === 0 && s.bytes.length >= 5 && s.bytes.slice(0, 3).every((b) => b !== -1),
    ).map((s) => bytesToBase64(s.bytes.slice(0, 3))),
  ),
];

function bytesToBase64(bytes: readonly number[]): string {
  return btoa(String.fromCharCode(...bytes));
}

/** Real base64 of binary data mixes upper case, lower case and digits; `-----` separators and hex do not. */
function mixedAlphabet(text: string, start: number, end: number): boolean {
  let upper = false;
  let lower = false;
  let digit = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) upper = true;
    else if (c >= 97 && c <= 122) lower = true;
    else if (c >= 48 && c <= 57) digit = true;
    if (upper && lower && digit) return true;
  }
  return false;
}

/** Start of the next run of at least MIN_BASE64_RUN base64 characters at or after `from`, or -1 (see nextRun). */
export function nextLongRun(text: string, from: number): number {
  return nextRun(text, from, MIN_BASE64_RUN, isBase64Char);
}

function runEnd(text: string, start: number): number {
  let end = start;
  while (end < text.length && isBase64Char(text.charCodeAt(end))) end++;
  return end;
}

function skipPadding(text: string, at: number): number {
  let end = at;
  while (end < text.length && end - at < MAX_PADDING && text.charCodeAt(end) === 61) end++;
  return end;
}

export function isBase64Char(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 43 ||
    code === 47 ||
    code === 45 ||
    code === 95
  );
}
