import { findBase64Regions } from "./base64.js";
import { detectEncoding, MISENCODING_HINT, type EncodingFinding } from "./encoding.js";
import { ESCAPES_HINT, findEscapedByteRegions } from "./escapes.js";
import { findHexRegions } from "./hex.js";
import { mayHoldRegion } from "./hints.js";
import { findJsonRegions, JSON_HINT } from "./json.js";
import type { MagicSignature } from "./magic.js";
import { BUFFER_AS_TEXT_NOTE, encodingNote, partsRemovedNote, regionPlaceholder } from "./texts.js";
import { findRawRegions } from "./raw.js";
import { provenSignatureAt, SIGNATURE_PROVABLE_IN_ASCII } from "./start.js";
import { mergeRegions, type BinaryRegion } from "./region.js";

/**
 * What the binary guard makes of one text (a string result, or one text block):
 * - `binary`: the text is a binary file (it starts with a file's signature, or nothing but a few
 *   characters is left once the binary regions are out): the result is replaced;
 * - `cleaned`: the text keeps its words; binary regions are replaced by placeholders, text in a
 *   wrong encoding is decoded or explained, and notes say what changed;
 * - undefined: text, left alone.
 */
export type TextReview =
  | { kind: "binary"; region: BinaryRegion }
  | { kind: "cleaned"; text: string; removed: BinaryRegion[]; encoding: EncodingFinding | undefined };

/**
 * Text left outside the regions (non-space characters, a deepagents "@@ lines ... @@" header
 * aside) below which the result is the binary file itself, not a document holding one. Any real
 * text (a sentence, JSON metadata such as a file name) is kept.
 */
const MIN_TEXT_LEFT = 16;

export function reviewText(text: string): TextReview | undefined {
  if (text.length === 0) return undefined;
  // Nearly every result is printable ASCII: no NUL, control character, U+FFFD or non-ASCII letter,
  // so no wrong encoding and no raw bytes (raw.ts), and neither needs its own pass over the text.
  const plain = !NOT_PLAIN_ASCII.test(text);
  // Nearly every result has nothing the other finders need either (see mayHoldRegion), and
  // printable ASCII proves no file signature (see SIGNATURE_PROVABLE_IN_ASCII): nothing to find.
  const hinted = mayHoldRegion(text);
  if (plain && !hinted && !SIGNATURE_PROVABLE_IN_ASCII) return undefined;
  const encoding = plain || !MISENCODING_HINT.test(text) ? undefined : detectEncoding(text);
  if (encoding?.kind === "utf-16") {
    const inner = reviewBinary(encoding.decoded, false, mayHoldRegion(encoding.decoded));
    if (inner?.kind === "binary") return inner;
    const body = inner?.kind === "cleaned" ? inner.text : encoding.decoded;
    return {
      kind: "cleaned",
      text: `${encodingNote(encoding)}\n${body}`,
      removed: inner?.kind === "cleaned" ? inner.removed : [],
      encoding,
    };
  }
  const review = reviewBinary(text, plain, hinted);
  if (review) return review;
  if (encoding) return { kind: "cleaned", text: `${encodingNote(encoding)}\n${text}`, removed: [], encoding };
  return undefined;
}

/** Any character but tab, line breaks and printable ASCII. */
const NOT_PLAIN_ASCII = /[^\t\n\r\x20-\x7e]/;

/**
 * `plain`: the text is printable ASCII (see `NOT_PLAIN_ASCII`), which holds no raw bytes.
 * `hinted`: mayHoldRegion(text), without which the other finders find nothing.
 */
function reviewBinary(text: string, plain: boolean, hinted: boolean): TextReview | undefined {
  // Printable ASCII proves no signature (see SIGNATURE_PROVABLE_IN_ASCII).
  const magic = plain && !SIGNATURE_PROVABLE_IN_ASCII ? undefined : magicAtStart(text);
  if (magic) {
    return {
      kind: "binary",
      region: {
        start: 0,
        end: text.length,
        label: magic.label,
        mediaType: magic.mediaType,
        evidence: "magic-number",
        form: "raw bytes",
        bytes: undefined,
      },
    };
  }
  // In the order ties between regions are settled in (see mergeRegions); a finder whose hint is
  // not in the text finds nothing, and is skipped.
  const found: BinaryRegion[] = [];
  if (hinted) {
    found.push(...findBase64Regions(text), ...findHexRegions(text));
    if (ESCAPES_HINT.test(text)) found.push(...findEscapedByteRegions(text));
    if (JSON_HINT.test(text)) found.push(...findJsonRegions(text));
  }
  if (!plain) found.push(...findRawRegions(text));
  const regions = mergeRegions(found);
  if (regions.length === 0) return undefined;
  const removed = regions.filter((r) => r.replacement === undefined);
  if (removed.length > 0 && removed.length === regions.length && textLeft(text, regions) < MIN_TEXT_LEFT) {
    const main = removed.reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a));
    return { kind: "binary", region: main };
  }
  return { kind: "cleaned", text: rewrite(text, regions), removed, encoding: undefined };
}

/** Non-space characters outside the regions, a leading "@@ ... @@" header line aside. */
function textLeft(text: string, regions: readonly BinaryRegion[]): number {
  let left = 0;
  const header = /^@@ [^\n]{0,100} @@\n/.exec(text);
  let at = header ? header[0].length : 0;
  for (const region of [...regions, { start: text.length, end: text.length }]) {
    for (let i = at; i < region.start; i++) if (text.charCodeAt(i) > 0x20) left++;
    at = region.end;
  }
  return left;
}

function rewrite(text: string, regions: readonly BinaryRegion[]): string {
  const parts: string[] = [];
  let at = 0;
  let bufferText = false;
  for (const region of regions) {
    parts.push(text.slice(at, region.start));
    if (region.replacement !== undefined) {
      bufferText = true;
      // A JSON value inside a larger text stays valid JSON; a result that is only the Buffer becomes its text.
      parts.push(
        regions.length === 1 && textLeft(text, regions) === 0 ? region.replacement : JSON.stringify(region.replacement),
      );
    } else {
      const placeholder = regionPlaceholder(region);
      parts.push(JSON_VALUE_EVIDENCE.has(region.evidence) ? JSON.stringify(placeholder) : placeholder);
    }
    at = region.end;
  }
  parts.push(text.slice(at));
  const body = parts.join("");
  const removed = regions.filter((r) => r.replacement === undefined);
  const notes = [
    removed.length > 0 && !looksLikeJsonText(body) ? partsRemovedNote(removed) : "",
    bufferText ? BUFFER_AS_TEXT_NOTE : "",
  ].filter(Boolean);
  return notes.length > 0 ? `${body}\n\n${notes.join("\n")}` : body;
}

/** Regions that are a whole JSON value (not the inside of a string): their placeholder is a JSON string. */
const JSON_VALUE_EVIDENCE: ReadonlySet<BinaryRegion["evidence"]> = new Set([
  "node-buffer",
  "byte-array",
  "byte-object",
]);

/** JSON stays parseable: its placeholders explain themselves, and no note is added after it. */
function looksLikeJsonText(text: string): boolean {
  const trimmed = text.trim();
  if (!(trimmed.startsWith("{") || trimmed.startsWith("["))) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}

/**
 * A file signature at the start of the text, or of its second line when the first is a short
 * header (deepagents' `read_file` puts "@@ lines 1-9 of 9 @@" before the content).
 */
function magicAtStart(text: string): MagicSignature | undefined {
  const direct = provenSignatureAt(text, 0);
  if (direct) return direct;
  const newline = text.indexOf("\n");
  return newline === -1 || newline > 200 ? undefined : provenSignatureAt(text, newline + 1);
}
