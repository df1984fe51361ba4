import { isHexChar } from "./hex.js";
import { bytesLookBinary, signatureIn, type BinaryRegion } from "./region.js";
import { UNKNOWN_LABEL } from "./texts.js";

/**
 * Bytes written as escapes: Python `bytes` literals (`b'\x89PNG\r\n...'`, what printing bytes
 * shows) and runs of `\xHH` escapes as in C strings.
 */
export function findEscapedByteRegions(text: string): BinaryRegion[] {
  return [...bytesLiteralRegions(text), ...escapedByteRegions(text)];
}

const BYTES_LITERAL = /\bb(['"])/g;

/** What every region of findEscapedByteRegions needs: `\x` escapes (8 in a bytes literal, MIN_ESCAPES in a run). */
export const ESCAPES_HINT = /\\x/;

/**
 * Python `bytes` literals (`b'%PDF-1.7\n%\xe2...'`), judged whole: a file's text parts between its
 * escapes would split it into runs too short to count.
 */
function bytesLiteralRegions(text: string): BinaryRegion[] {
  const out: BinaryRegion[] = [];
  BYTES_LITERAL.lastIndex = 0;
  for (let m = BYTES_LITERAL.exec(text); m; m = BYTES_LITERAL.exec(text)) {
    const quote = m[1]!.charCodeAt(0);
    let end = m.index + 2;
    let escapes = 0;
    while (end < text.length && text.charCodeAt(end) !== quote && text.charCodeAt(end) !== 10) {
      if (text.charCodeAt(end) === 92) {
        if (text[end + 1] === "x") escapes++;
        end += 2;
      } else end++;
    }
    if (end >= text.length || text.charCodeAt(end) !== quote) continue;
    BYTES_LITERAL.lastIndex = end + 1;
    if (escapes < 8) continue;
    const bytes = unescapeBytes(text.slice(m.index + 2, Math.min(end, m.index + 2 + 8192)));
    const signature = signatureIn(bytes, 3);
    if (!signature && !bytesLookBinary(Uint8Array.from(bytes))) continue;
    out.push({
      start: m.index,
      end: end + 1,
      label: signature?.label ?? UNKNOWN_LABEL,
      mediaType: signature?.mediaType,
      evidence: "hex",
      form: "a bytes literal",
      bytes: bytes.length,
    });
  }
  return out;
}

/** Escapes a byte-escaped string must hold to count (Python's `b'\x89PNG...'`, C's "\x00\x01"). */
const MIN_ESCAPES = 32;
/** Characters allowed between two escapes of one run (printable bytes shown as themselves). */
const MAX_GAP = 8;

/**
 * Bytes written as `\xHH` escapes, as Python prints `bytes` and C writes string literals: runs of
 * escapes with at most a few plain characters between them, decoded and judged like any bytes.
 */
function escapedByteRegions(text: string): BinaryRegion[] {
  const out: BinaryRegion[] = [];
  let at = text.indexOf("\\x");
  while (at !== -1) {
    let end = at;
    let escapes = 0;
    let next = at;
    while (
      next !== -1 &&
      next - end <= MAX_GAP &&
      isHexChar(text.charCodeAt(next + 2)) &&
      isHexChar(text.charCodeAt(next + 3))
    ) {
      escapes++;
      end = next + 4;
      next = text.indexOf("\\x", end);
    }
    if (escapes >= MIN_ESCAPES) {
      const bytes = unescapeBytes(text.slice(at, Math.min(end, at + 4096)));
      const signature = signatureIn(bytes, 3);
      if (signature || bytesLookBinary(Uint8Array.from(bytes))) {
        out.push({
          start: at,
          end,
          label: signature?.label ?? UNKNOWN_LABEL,
          mediaType: signature?.mediaType,
          evidence: "hex",
          form: "escaped bytes (\\xHH)",
          bytes: undefined,
        });
      }
    }
    // Go on from the first escape this run did not take (a run that took none moves past its start).
    at = escapes === 0 ? text.indexOf("\\x", at + 2) : next;
  }
  return out;
}

/** Bytes of a run of `\xHH` escapes and the characters between them (`\n`, `\r`, `\t`, `\\` and `\'` as Python writes them). */
function unescapeBytes(run: string): number[] {
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, r: 13, t: 9, "0": 0, "\\": 92, "'": 39, '"': 34 };
  for (let i = 0; i < run.length; i++) {
    const c = run[i]!;
    if (c === "\\" && run[i + 1] === "x") {
      bytes.push(parseInt(run.slice(i + 2, i + 4), 16));
      i += 3;
    } else if (c === "\\" && run[i + 1] !== undefined && simple[run[i + 1]!] !== undefined) {
      bytes.push(simple[run[i + 1]!]!);
      i++;
    } else bytes.push(run.charCodeAt(i) & 0xff);
  }
  return bytes;
}
