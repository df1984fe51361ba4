import { rawBinaryEvidence } from "./raw.js";
import { bytesLookBinary, fixedBytes, signatureIn, someByteStandsOut, type BinaryRegion } from "./region.js";
import { UNKNOWN_LABEL } from "./texts.js";
import { provenSignatureAt } from "./start.js";

/**
 * Binary data that JSON serialisation hides from a scan of the raw text: bytes in a JSON string
 * (`JSON.stringify` writes a NUL as `\u0000` and breaks up every signature), a Node Buffer
 * (`{"type":"Buffer","data":[137,80,...]}`, what a tool returning a Buffer becomes), a typed
 * array (`{"0":137,"1":80,...}`, what a tool returning a Uint8Array becomes), and plain arrays of
 * byte values, when they hold a file (see byteListRegion).
 */

/** A JSON string shorter than this (raw) is a name or a value, not a file. */
const MIN_STRING = 32;

export function findJsonRegions(text: string): BinaryRegion[] {
  const out: BinaryRegion[] = [];
  if (looksLikeJson(text)) out.push(...stringRegions(text));
  out.push(...bufferRegions(text), ...byteListRegions(text, BYTE_ARRAY), ...byteListRegions(text, TYPED_ARRAY));
  return out;
}

/** JSON, or JSON after a short header line (deepagents' `read_file` starts with "@@ lines 1-9 of 9 @@"). */
function looksLikeJson(text: string): boolean {
  const start = text.search(/\S/);
  if (start === -1) return false;
  if (text[start] === "{" || text[start] === "[") return true;
  const newline = text.indexOf("\n", start);
  if (newline === -1 || newline - start > 200) return false;
  const next = text.slice(newline + 1, newline + 200).search(/\S/);
  return next !== -1 && (text[newline + 1 + next] === "{" || text[newline + 1 + next] === "[");
}

/** JSON string literals whose decoded value is binary data; the region is the literal's inside. */
function stringRegions(text: string): BinaryRegion[] {
  const out: BinaryRegion[] = [];
  let i = text.indexOf('"');
  while (i !== -1 && i < text.length) {
    let j = i + 1;
    let suspicious = false;
    while (j < text.length) {
      const code = text.charCodeAt(j);
      if (code === 92) {
        if (text.charCodeAt(j + 1) === 117 && text.charCodeAt(j + 2) === 48 && text.charCodeAt(j + 3) === 48)
          suspicious = true;
        j += 2;
        continue;
      }
      if (code === 34) break;
      // Raw bytes decoded as text leave U+FFFD (UTF-8) or C1 controls (Latin-1); words in any script leave neither.
      if (code === 0xfffd || (code >= 0x80 && code < 0xa0)) suspicious = true;
      j++;
    }
    if (j >= text.length) break;
    if (suspicious && j - i - 1 >= MIN_STRING) {
      const region = judgeString(text, i, j);
      if (region) out.push(region);
    }
    i = text.indexOf('"', j + 1);
  }
  return out;
}

function judgeString(text: string, open: number, close: number): BinaryRegion | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text.slice(open, close + 1));
  } catch {
    return undefined;
  }
  if (typeof value !== "string") return undefined;
  const signature = provenSignatureAt(value, 0);
  if (!signature && !rawBinaryEvidence(value)) return undefined;
  return {
    start: open + 1,
    end: close,
    label: signature?.label ?? UNKNOWN_LABEL,
    mediaType: signature?.mediaType,
    evidence: "json-escaped",
    form: "raw bytes in a JSON string",
    bytes: value.length,
  };
}

const BUFFER_JSON_SOURCE = String.raw`\{\s*"type"\s*:\s*"Buffer"\s*,\s*"data"\s*:\s*\[`;
const BUFFER_JSON = new RegExp(BUFFER_JSON_SOURCE, "g");

function bufferRegions(text: string): BinaryRegion[] {
  const out: BinaryRegion[] = [];
  BUFFER_JSON.lastIndex = 0;
  for (let m = BUFFER_JSON.exec(text); m; m = BUFFER_JSON.exec(text)) {
    const array = parseByteArray(text, m.index + m[0].length - 1);
    if (!array) continue;
    let end = array.end;
    while (end < text.length && /\s/.test(text[end]!)) end++;
    if (text[end] !== "}") continue;
    end++;
    BUFFER_JSON.lastIndex = end;
    const bytes = Uint8Array.from(array.bytes);
    const signature = signatureIn(bytes, 3);
    const region: BinaryRegion = {
      start: m.index,
      end,
      label: signature?.label ?? UNKNOWN_LABEL,
      mediaType: signature?.mediaType,
      evidence: "node-buffer",
      form: "a Node Buffer written as JSON",
      bytes: bytes.length,
    };
    if (!signature && !bytesLookBinary(bytes)) {
      // A Buffer of text: the model gets the text instead of a list of numbers.
      const decoded = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
      if (rawBinaryEvidence(decoded)) out.push(region);
      else out.push({ ...region, label: "text", replacement: decoded });
      continue;
    }
    out.push(region);
  }
  return out;
}

const ARRAY_START = /\[\s*\d{1,3}\s*,/g;
/** A list of numbers is data unless it holds at least this many bytes... */
const MIN_LIST_BYTES = 64;
/** ...and starts with a signature, or holds this many and reads as structured binary. */
const MIN_UNKNOWN_LIST_BYTES = 2048;

/** A way a list of byte values is written in JSON: where one starts, how it is read, what it is called. */
interface ByteListForm {
  start: RegExp;
  parse: (text: string, open: number) => { bytes: number[]; end: number } | undefined;
  evidence: "byte-array" | "byte-object";
  label: string;
}

const BYTE_ARRAY: ByteListForm = {
  start: ARRAY_START,
  parse: (text, open) => parseByteArray(text, open),
  evidence: "byte-array",
  label: "an array of byte values",
};

/** Where a typed array's JSON starts: `JSON.stringify(new Uint8Array(...))` is `{"0":137,"1":80,...}`. */
const TYPED_ARRAY_SOURCE = String.raw`\{\s*"0"\s*:\s*\d`;

const TYPED_ARRAY: ByteListForm = {
  start: new RegExp(TYPED_ARRAY_SOURCE, "g"),
  parse: (text, open) => parseIndexedBytes(text, open),
  evidence: "byte-object",
  label: "a byte array written as a JSON object",
};

/**
 * What every region of findJsonRegions needs: what makes a string suspicious (a `\u00` escape,
 * U+FFFD or a C1 control, see stringRegions), the start of a Buffer's JSON, MIN_LIST_BYTES values
 * in a list, the first MIN_LIST_BYTES - 1 each followed by a comma (see parseByteArray), or the
 * start of a typed array's JSON.
 */
export const JSON_HINT = new RegExp(
  [
    String.raw`\\u00|[\u0080-\u009f\ufffd]`,
    BUFFER_JSON_SOURCE,
    String.raw`\[(?:\s*\d+\s*,){${MIN_LIST_BYTES - 1}}`,
    TYPED_ARRAY_SOURCE,
  ].join("|"),
);

function byteListRegions(text: string, form: ByteListForm): BinaryRegion[] {
  const out: BinaryRegion[] = [];
  form.start.lastIndex = 0;
  for (let m = form.start.exec(text); m; m = form.start.exec(text)) {
    const list = form.parse(text, m.index);
    if (!list) continue;
    form.start.lastIndex = list.end;
    const region = byteListRegion(list.bytes, m.index, list.end, form.evidence, form.label);
    if (region) out.push(region);
  }
  return out;
}

/**
 * A list of byte values (an array, or a typed array's indexed object) that is a file: it starts
 * with a signature, or it is long and reads as structured binary. A weak (3-byte) signature needs
 * a long list that reads as binary: [255, 216, 255, ...] could be pixel values. Without a
 * signature, ages, counts or pixel rows never hold a tenth of bytes over 127 that read as binary
 * with some value standing out (NUL padding); random numbers do not have one standing out.
 */
function byteListRegion(
  bytes: number[],
  start: number,
  end: number,
  evidence: "byte-array" | "byte-object",
  form: string,
): BinaryRegion | undefined {
  if (bytes.length < MIN_LIST_BYTES) return undefined;
  const head = Uint8Array.from(bytes.slice(0, 1024));
  const found = signatureIn(bytes, 3);
  const signature =
    found && (fixedBytes(found) >= 4 || (bytes.length >= 256 && bytesLookBinary(head))) ? found : undefined;
  if (!signature && !unknownBinaryList(bytes, head)) return undefined;
  return {
    start,
    end,
    label: signature?.label ?? UNKNOWN_LABEL,
    mediaType: signature?.mediaType,
    evidence,
    form,
    bytes: bytes.length,
  };
}

/** A long list of byte values with no signature that reads as binary, a tenth of it over 127, some value standing out. */
function unknownBinaryList(bytes: readonly number[], head: Uint8Array): boolean {
  if (bytes.length < MIN_UNKNOWN_LIST_BYTES || !bytesLookBinary(head)) return false;
  const high = head.reduce((count, byte) => count + (byte >= 0x80 ? 1 : 0), 0);
  return high >= head.length / 10 && someByteStandsOut(Uint8Array.from(bytes.slice(0, 8192)));
}

/**
 * `{"0": n, "1": n, ...}` at `open`, keys counting up from 0 and every n a whole number 0-255, or
 * undefined; `end` is after the `}`.
 */
function parseIndexedBytes(text: string, open: number): { bytes: number[]; end: number } | undefined {
  const bytes: number[] = [];
  let i = open + 1;
  for (;;) {
    i = skipSpace(text, i);
    const key = `"${bytes.length}"`;
    if (!text.startsWith(key, i)) return undefined;
    i = skipSpace(text, i + key.length);
    if (text[i] !== ":") return undefined;
    i = skipSpace(text, i + 1);
    let value = -1;
    for (; i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57; i++) {
      value = (value === -1 ? 0 : value * 10) + (text.charCodeAt(i) - 48);
      if (value > 255) return undefined;
    }
    if (value === -1) return undefined;
    bytes.push(value);
    i = skipSpace(text, i);
    if (text[i] === "}") return { bytes, end: i + 1 };
    if (text[i] !== ",") return undefined;
    i++;
  }
}

function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++;
  return i;
}

/** `[n, n, ...]` at `open` with every n a whole number 0-255, or undefined; `end` is after the `]`. */
function parseByteArray(text: string, open: number): { bytes: number[]; end: number } | undefined {
  const bytes: number[] = [];
  let i = open + 1;
  let value = -1;
  let ended = false; // whitespace after a number: the next character must be "," or "]"
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) {
      if (ended) return undefined;
      value = (value === -1 ? 0 : value * 10) + (code - 48);
      if (value > 255) return undefined;
    } else if (code === 44 || code === 93) {
      if (value === -1) return code === 93 && bytes.length === 0 ? { bytes, end: i + 1 } : undefined;
      bytes.push(value);
      value = -1;
      ended = false;
      if (code === 93) return { bytes, end: i + 1 };
    } else if (code === 32 || code === 10 || code === 13 || code === 9) ended = value !== -1;
    else return undefined;
  }
  return undefined;
}
