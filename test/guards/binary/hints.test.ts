import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { reviewText } from "../../../src/guards/binary/review.js";
import { mayHoldRegion } from "../../../src/guards/binary/hints.js";
import { findBase64Regions } from "../../../src/guards/binary/base64.js";
import { findHexRegions } from "../../../src/guards/binary/hex.js";
import { ESCAPES_HINT, findEscapedByteRegions } from "../../../src/guards/binary/escapes.js";
import { findJsonRegions, JSON_HINT } from "../../../src/guards/binary/json.js";
import { detectEncoding, MISENCODING_HINT } from "../../../src/guards/binary/encoding.js";
import { provenSignatureAt, SIGNATURE_PROVABLE_IN_ASCII } from "../../../src/guards/binary/start.js";
import { makePng } from "./fixtures.js";

/**
 * reviewText skips every finder for printable ASCII without their hints (mayHoldRegion);
 * reviewBinary skips the base64, hex, escape and JSON finders in any text without those hints,
 * the escape and JSON finders without their own, and encoding detection without a NUL or U+FFFD.
 * Each skip must give the answer the full path gives: generated texts sit on both sides of every
 * finder's thresholds.
 */

const PNG = makePng();
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_";
const HEX = "0123456789abcdefABCDEF";

const charsOf = (alphabet: string, min: number, max: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((chars) => chars.join(""));
const pngBase64 = (length: number) => PNG.toString("base64").slice(0, length);
const pngHex = (length: number) => PNG.toString("hex").slice(0, length);
/** A PNG's head in a JSON string, every byte that is not printable ASCII escaped (`\u0089PNG\r\n\u001a...`). */
const ASCII_JSON_PNG = JSON.stringify({ body: PNG.subarray(0, 48).toString("latin1") }).replace(
  /[\u007f-\uffff]/g,
  (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
);
/** Around a threshold: `at` and a few characters either side. */
const near = (at: number) => fc.integer({ min: at - 3, max: at + 3 });

const fragment = fc.oneof(
  // Prose, separators and the characters the hints look for.
  fc.constantFrom("Revenue grew 12% in Q3.", "see", " ", "  ", "\n", "\r\n", "\t", ",", '"', "=", "==", ".", ":"),
  fc.constantFrom("\\", "\\n", "\\r\\n", "\\x", "\\u00", "b'", "[", "]", "{", "}", "0x", '"0":', "src/a_b-c/d"),
  // Base64 runs around MIN_BASE64_RUN (64, 62 with padding), random or a PNG's, bare or in a data URL.
  near(62).chain((n) => charsOf(B64, n, n)),
  near(62).map(pngBase64),
  fc.tuple(near(62), fc.constantFrom("", "=", "==")).map(([n, pad]) => `data:image/png;base64,${pngBase64(n)}${pad}`),
  fc.tuple(near(62), fc.constantFrom("", "==")).map(([n, pad]) => `data:text/plain;base64,${pngBase64(n)}${pad}`),
  near(62).map((n) => `payload_${pngBase64(n)}`),
  // Hex runs around MIN_WRAPPED_LINE (16) and MIN_HEX_RUN (256), and wrapped over lines.
  near(16).chain((n) => charsOf(HEX, n, n)),
  near(256).map(pngHex),
  fc
    .tuple(near(16), fc.integer({ min: 2, max: 24 }), fc.constantFrom("\n", "\r\n", "\\n", "\\r\\n"))
    .map(([width, lines, brk]) => (pngHex(width * lines).match(new RegExp(`.{1,${width}}`, "g")) ?? []).join(brk)),
  // Hex dump lines (xxd and near misses), one or a few.
  fc.tuple(fc.integer({ min: 1, max: 6 }), fc.constantFrom(2, 4), fc.boolean()).map(([lines, group, offset]) =>
    Array.from({ length: lines }, (_, line) => {
      const bytes = pngHex(32 * (line + 1)).slice(32 * line);
      const groups = bytes.match(new RegExp(`.{${group}}`, "g"))!.join(" ");
      return `${offset ? `${(line * 16).toString(16).padStart(8, "0")}: ` : ""}${groups}  .PNG....\n`;
    }).join(""),
  ),
  fc.constantFrom("12 34 56\n", "2024 12 31 report\n", "  ab cd\n"),
  // Byte escapes around the bytes literal's 8 and the run's MIN_ESCAPES (32).
  fc
    .tuple(near(8), fc.boolean())
    .map(([n, literal]) =>
      literal
        ? `b'${[...PNG.subarray(0, n)].map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join("")}'`
        : [...PNG.subarray(0, n)].map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join(""),
    ),
  near(32).map((n) => [...PNG.subarray(0, n)].map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join("")),
  // JSON forms: escaped bytes in a string, digit arrays around MIN_LIST_BYTES (64), Buffers, typed arrays.
  fc.constantFrom(JSON.stringify({ body: PNG.subarray(0, 48).toString("latin1") }), '{"a":"\\u0000"}', ASCII_JSON_PNG),
  near(64).map((n) => JSON.stringify([...PNG.subarray(0, n)])),
  near(64).map((n) => `[${[...PNG.subarray(0, n)].join(", ")}]`),
  near(64).map((n) => JSON.stringify(Array.from({ length: n }, (_, i) => i % 10))),
  near(8).map((n) => JSON.stringify({ type: "Buffer", data: [...PNG.subarray(0, n)] })),
  near(64).map((n) => JSON.stringify({ ...PNG.subarray(0, n) })),
);

const text = fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join(""));
const unicode = fc.tuple(text, fc.string({ unit: "binary", maxLength: 40 })).map(([t, s]) => `${s}${t}`);
const PLAIN = /^[\t\n\r\x20-\x7e]*$/;

/** What the full review of printable ASCII finds: a signature at the start (or after a short header line), or any region. */
function fullPathFinds(text: string): boolean {
  const newline = text.indexOf("\n");
  const magic =
    provenSignatureAt(text, 0) ?? (newline === -1 || newline > 200 ? undefined : provenSignatureAt(text, newline + 1));
  const regions = [findBase64Regions, findHexRegions, findEscapedByteRegions, findJsonRegions].flatMap((f) => f(text));
  return magic !== undefined || regions.length > 0;
}

describe("the binary review's fast path", () => {
  it("answers like the full path on printable ASCII, on both sides of every threshold", () => {
    const seen = { found: 0, skipped: 0, hinted: 0 };
    fc.assert(
      fc.property(text, (t) => {
        fc.pre(PLAIN.test(t));
        const finds = fullPathFinds(t);
        expect(reviewText(t) !== undefined).toBe(finds);
        if (!mayHoldRegion(t)) {
          expect(finds).toBe(false);
          seen.skipped++;
        } else if (finds) seen.found++;
        else seen.hinted++;
      }),
      { numRuns: 1500 },
    );
    // Every side was reached: texts with a payload, texts the fast path skipped, and near misses it read in full.
    expect(seen.found).toBeGreaterThan(50);
    expect(seen.skipped).toBeGreaterThan(50);
    expect(seen.hinted).toBeGreaterThan(50);
  });

  it("skips no finder that would find something, in any text", () => {
    fc.assert(
      fc.property(fc.oneof(text, unicode), (t) => {
        if (!mayHoldRegion(t)) {
          expect(findBase64Regions(t)).toEqual([]);
          expect(findHexRegions(t)).toEqual([]);
          expect(findEscapedByteRegions(t)).toEqual([]);
          expect(findJsonRegions(t)).toEqual([]);
        }
        if (!ESCAPES_HINT.test(t)) expect(findEscapedByteRegions(t)).toEqual([]);
        if (!JSON_HINT.test(t)) expect(findJsonRegions(t)).toEqual([]);
      }),
      { numRuns: 1500 },
    );
  });

  it("finds no wrong encoding without a NUL or U+FFFD", () => {
    // UTF-16 and Windows-1252 read byte by byte, with and without the characters the hint looks for.
    const misread = fc
      .tuple(
        fc.string({ maxLength: 300 }),
        fc.constantFrom("utf16le", "latin1"),
        fc.constantFrom<[string, string]>(["\u0000", "\u0001"], ["\ufffd", "?"], ["", ""]),
      )
      .map(([words, encoding, [from, to]]) => {
        const bytes = Buffer.from(
          `${words} naïve café façade, déjà vu élan `.repeat(2),
          encoding === "utf16le" ? "utf16le" : "latin1",
        );
        const read = encoding === "utf16le" ? bytes.toString("latin1") : new TextDecoder().decode(bytes);
        return from === "" ? read : read.replaceAll(from, to);
      });
    let found = 0;
    fc.assert(
      fc.property(fc.oneof(misread, unicode), (t) => {
        const encoding = detectEncoding(t);
        if (!MISENCODING_HINT.test(t)) expect(encoding).toBeUndefined();
        if (encoding) found++;
      }),
      { numRuns: 800 },
    );
    expect(found).toBeGreaterThan(50);
  });

  it("finds no proven file signature in printable ASCII", () => {
    expect(SIGNATURE_PROVABLE_IN_ASCII).toBe(false);
    const starts = fc.constantFrom(
      "%PDF-1.7",
      "GIF89a",
      "RIFF1234WEBP",
      "1234ftypisom",
      "SQLite format 3",
      "8BPS",
      "BZh9",
    );
    fc.assert(
      fc.property(starts, text, (start, rest) => {
        fc.pre(PLAIN.test(rest));
        expect(provenSignatureAt(`${start}${rest}`, 0)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
    // The same signature with raw binary after it is proven: the check above is not vacuous.
    expect(provenSignatureAt("%PDF-1.7\n%\u0000\u0001\u0002", 0)?.label).toBe("PDF document");
  });
});
