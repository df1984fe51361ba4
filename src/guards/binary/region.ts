import { MAGIC_SIGNATURES, matchMagicBytes, type MagicSignature } from "./magic.js";

/**
 * A stretch of a text that is binary data in some encoding (base64, hex, a hex dump, JSON
 * escapes, a Node Buffer's JSON, raw bytes decoded as text), found by the finders in
 * binaryBase64.ts, binaryHex.ts, binaryJson.ts and binaryRaw.ts.
 */
export interface BinaryRegion {
  /** Characters `[start, end)` of the text. */
  start: number;
  end: number;
  /** Read by the model: what the data is, e.g. "PNG image" or "binary file of unknown type". */
  label: string;
  mediaType: string | undefined;
  /** How it was recognised. */
  evidence: RegionEvidence;
  /** Read by the model: the form it took in the text, e.g. "base64" or "a hex dump". */
  form: string;
  /** Bytes of data it holds, when known. */
  bytes: number | undefined;
  /** Text to put in its place instead of the standard placeholder (a Node Buffer holding text is shown as that text). */
  replacement?: string;
}

export type RegionEvidence =
  | "magic-number"
  | "magic-number-in-base64"
  | "data-url"
  | "base64-binary"
  | "hex"
  | "hex-dump"
  | "json-escaped"
  | "node-buffer"
  | "byte-array"
  | "byte-object"
  | "nul-bytes"
  | "replacement-characters"
  | "control-characters";

/**
 * How many bytes of a signature are fixed (not wildcards). A signature of 3 fixed bytes (JPEG,
 * gzip) turns up by chance in about one of 16 million random positions, so it only counts
 * where a file can start; one of 5 or more is proof wherever it is.
 */
export function fixedBytes(signature: MagicSignature): number {
  return signature.bytes.filter((b) => b !== -1).length;
}

/** The signature `bytes` start with, if it is strong enough for where it was found. */
export function signatureIn(bytes: ArrayLike<number>, minFixed: number): MagicSignature | undefined {
  const signature = matchMagicBytes(bytes);
  return signature && fixedBytes(signature) >= minFixed ? signature : undefined;
}

/** Signatures a file can be named by. */
export const SIGNATURES = MAGIC_SIGNATURES;

const decoder = new TextDecoder("utf-8", { fatal: false });

/**
 * Whether decoded bytes are binary data rather than text: at least a tenth of what they decode
 * to (as UTF-8) is NUL, a control character other than whitespace and escape, or invalid.
 * Text in any UTF-8 script, and base64 of JSON, CSV or PEM bodies, stays well below.
 */
export function bytesLookBinary(bytes: Uint8Array): boolean {
  if (bytes.length < 16) return false;
  const text = decoder.decode(bytes);
  let bad = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (
      code === 0xfffd ||
      (code < 0x20 && code !== 9 && code !== 10 && code !== 13 && code !== 12 && code !== 27) ||
      (code >= 0x7f && code < 0xa0)
    )
      bad++;
  }
  return bad / Math.max(text.length, 1) >= 0.1;
}

/**
 * Whether one byte value occurs at least four times as often as in uniformly random bytes (which
 * stay under twice from 2 KB on): real binary repeats some (NUL padding, opcodes, headers); hashes,
 * ids and random numbers do not. Needs 2 KB or more to mean anything.
 */
export function someByteStandsOut(bytes: Uint8Array): boolean {
  const counts = new Uint32Array(256);
  for (const byte of bytes) counts[byte]!++;
  return Math.max(...counts) >= (4 * bytes.length) / 256;
}

/**
 * Regions in order, without overlaps: where two overlap, the one that starts first (the longer,
 * for the same start) wins, since a finder that saw more context (a data URL, a JSON string, a
 * dump block) covers what a narrower one (the base64 run inside) found.
 */
export function mergeRegions(regions: readonly BinaryRegion[]): BinaryRegion[] {
  const sorted = [...regions].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: BinaryRegion[] = [];
  for (const region of sorted) {
    const last = out[out.length - 1];
    if (last && region.start < last.end) {
      if (region.end > last.end) last.end = region.end;
      continue;
    }
    out.push({ ...region });
  }
  return out;
}

/**
 * Start of the next run of at least `min` characters that `inRun` accepts, or -1. Any such run
 * starting in [i, i + min) covers i + min - 1, so when that character is not in a run the scan
 * jumps a whole run length: prose costs a fraction of a read per character.
 */
export function nextRun(text: string, from: number, min: number, inRun: (code: number) => boolean): number {
  let i = from;
  while (i + min <= text.length) {
    const probe = i + min - 1;
    if (!inRun(text.charCodeAt(probe))) {
      i = probe + 1;
      continue;
    }
    let start = probe;
    while (start > i && inRun(text.charCodeAt(start - 1))) start--;
    let end = probe + 1;
    while (end < text.length && end - start < min && inRun(text.charCodeAt(end))) end++;
    if (end - start >= min) return start;
    i = end + 1;
  }
  return -1;
}
