import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  MAGIC_SIGNATURES,
  matchMagicBase64,
  matchMagicBytes,
  matchMagicText,
} from "../../../src/guards/binary/magic.js";
import { reviewText } from "../../../src/guards/binary/review.js";
import { inspectToolResult } from "../../../src/guards/binary/content.js";
import { makePdf, makePng, makeUnknownBinary } from "./fixtures.js";

/** A file of the signature's type: its bytes (wildcards filled) followed by random data. */
function fileFor(signature: (typeof MAGIC_SIGNATURES)[number], tail: Uint8Array): Buffer {
  const head = Buffer.alloc((signature.offset ?? 0) + signature.bytes.length, 0x41);
  signature.bytes.forEach((b, i) => (head[(signature.offset ?? 0) + i] = b === -1 ? 0x33 : b));
  return Buffer.concat([head, tail]);
}

/** Why `text` as a whole is binary data, or undefined (text, or text with binary parts). */
function sniffText(text: string) {
  const review = reviewText(text);
  return review?.kind === "binary"
    ? { kind: review.region.evidence, label: review.region.label, mediaType: review.region.mediaType }
    : undefined;
}

const bytesArb = fc.uint8Array({ minLength: 0, maxLength: 256 });

describe("file signatures", () => {
  it("recognises every signature in raw bytes, Latin-1 text and base64", () => {
    for (const signature of MAGIC_SIGNATURES) {
      const file = fileFor(signature, new Uint8Array(64).fill(0x20));
      expect(matchMagicBytes(file)?.mediaType, signature.label).toBe(signature.mediaType);
      expect(matchMagicText(file.toString("latin1"))?.mediaType, signature.label).toBe(signature.mediaType);
      expect(matchMagicBase64(file.toString("base64"))?.mediaType, signature.label).toBe(signature.mediaType);
    }
  });

  it("finds the first signature of the list that the bytes carry, whatever byte they start with", () => {
    const firstOfList = (bytes: ArrayLike<number>) =>
      MAGIC_SIGNATURES.find((signature) => {
        const start = signature.offset ?? 0;
        if (bytes.length < start + signature.bytes.length) return false;
        return signature.bytes.every((b, i) => b === -1 || bytes[start + i] === b);
      });
    const files = MAGIC_SIGNATURES.map((signature) => fileFor(signature, new Uint8Array(8)));
    fc.assert(
      fc.property(
        fc.oneof(
          bytesArb,
          fc.constantFrom(...files).map((file) => new Uint8Array(file)),
          fc.array(fc.oneof(fc.integer({ min: -2, max: 300 }), fc.double()), { maxLength: 40 }),
        ),
        (bytes) => {
          expect(matchMagicBytes(bytes)).toBe(firstOfList(bytes));
        },
      ),
      { numRuns: 2000 },
    );
    for (const file of files) expect(matchMagicBytes(file)).toBe(firstOfList(file));
  });

  it("recognises signatures after a lossy UTF-8 decode, whatever bytes follow, when enough bytes survive it", () => {
    const survivable = MAGIC_SIGNATURES.filter((s) => s.bytes.filter((b) => b >= 0 && b < 0x80).length >= 2);
    expect(survivable.map((s) => s.label)).toEqual(
      expect.arrayContaining(["PNG image", "PDF document", "ZIP archive", "ELF executable", "7-Zip archive"]),
    );
    fc.assert(
      fc.property(fc.constantFrom(...survivable), bytesArb, (signature, tail) => {
        const decoded = fileFor(signature, tail).toString("utf8");
        expect(matchMagicText(decoded)?.mediaType).toBe(signature.mediaType);
      }),
      { numRuns: 300 },
    );
  });

  it("does not name a type from replacement characters alone", () => {
    for (const bytes of [
      [0xff, 0xd8, 0xff, 0xe0],
      [0xca, 0xfe, 0xba, 0xbe],
      [0xfe, 0xed, 0xfa, 0xce],
    ]) {
      expect(matchMagicText(Buffer.from([...bytes, 0x41, 0x42]).toString("utf8"))).toBeUndefined();
      expect(matchMagicText(Buffer.from([...bytes, 0x41, 0x42]).toString("latin1"))).toBeDefined();
    }
  });
});

describe("reviewText of a whole text", () => {
  it("finds real files decoded as text, in base64, in JSON and in data URLs", () => {
    const png = makePng();
    const pdf = makePdf();
    expect(sniffText(png.toString("utf8"))).toMatchObject({ kind: "magic-number", label: "PNG image" });
    expect(sniffText(pdf.toString("latin1"))).toMatchObject({ kind: "magic-number", label: "PDF document" });
    expect(sniffText(`@@ lines 1-9 of 9 @@\n${png.toString("utf8")}`)).toMatchObject({ kind: "magic-number" });
    expect(sniffText(pdf.toString("base64"))).toMatchObject({
      kind: "magic-number-in-base64",
      mediaType: "application/pdf",
    });
    // JSON that names the file keeps its name: the payload alone is removed (binaryCorpus.test.ts), it is not a binary file.
    expect(sniffText(JSON.stringify({ file: "a.png", data: png.toString("base64") }))).toBeUndefined();
    expect(sniffText(`see data:image/png;base64,${png.toString("base64")}`)).toMatchObject({
      kind: "magic-number-in-base64",
    });
    expect(sniffText(`data:application/octet-stream;base64,${"QUJD".repeat(40)}`)).toMatchObject({
      kind: "data-url",
      mediaType: "application/octet-stream",
    });
    expect(sniffText(makeUnknownBinary().toString("utf8"))).toMatchObject({ kind: "nul-bytes" });
  });

  it("finds mojibake without NULs by its replacement characters, and Latin-1 noise by its control characters", () => {
    const random = Buffer.from(Array.from({ length: 3000 }, (_, i) => 0x80 + ((i * 37) % 0x7f)));
    expect(sniffText(`header\n${random.toString("utf8")}`)).toMatchObject({ kind: "replacement-characters" });
    const controls = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? 0x01 + (i % 7) : 0x61)));
    expect(sniffText(controls.toString("latin1"))).toMatchObject({ kind: "control-characters" });
  });

  it("leaves text alone: prose, code, JSON, CSV, logs with ANSI colours, other scripts, emoji, hex hashes", () => {
    const texts = [
      "The quick brown fox jumps over the lazy dog.\n".repeat(200),
      "export function add(a: number, b: number) {\n\treturn a + b;\n}\n".repeat(100),
      JSON.stringify({
        users: Array.from({ length: 100 }, (_, i) => ({ id: i, name: `user ${i}`, tags: ["a", "b"] })),
      }),
      "id,name,amount\n" + Array.from({ length: 500 }, (_, i) => `${i},item ${i},${i * 3.5}`).join("\n"),
      "\u001b[31mERROR\u001b[0m build failed\n\u001b[32mOK\u001b[0m tests passed\n".repeat(100),
      "日本語のテキストと中文文本，还有한국어 텍스트. Ελληνικά και русский текст.\n".repeat(100),
      "Release notes 🎉🚀 with emoji 👍🏽 and flags 🇫🇷\n".repeat(100),
      Array.from({ length: 200 }, (_, i) => `sha256:${(i * 2654435761).toString(16).padStart(64, "0")}`).join("\n"),
      "An old file with a few bad bytes \ufffd here and \ufffd there.\n".repeat(10),
      "Base64 words like H4sI and /9j/ and iVBORw0KGgo mentioned in a sentence.",
      "",
    ];
    for (const text of texts) expect(sniffText(text), text.slice(0, 40)).toBeUndefined();
  });

  it("never throws, on any string or any bytes decoded either way", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary", maxLength: 3000 }), fc.string({ maxLength: 3000 })), (text) => {
        sniffText(text);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 3000 }),
        fc.constantFrom("utf8", "latin1", "base64", "hex", "utf16le") as fc.Arbitrary<BufferEncoding>,
        (bytes, encoding) => {
          sniffText(Buffer.from(bytes).toString(encoding));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("inspectToolResult", () => {
  const none = { allowedMediaTypes: [] };

  it("judges media blocks in every provider's shape by their type", () => {
    const png = makePng().toString("base64");
    const shapes = [
      { type: "image", mimeType: "image/png", data: png },
      { type: "image", source_type: "base64", mime_type: "image/png", data: png },
      { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
      { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
      { type: "file", file: { file_data: `data:image/png;base64,${png}`, filename: "chart.png" } },
    ];
    for (const block of shapes) {
      expect(inspectToolResult({ content: [block] }, none), JSON.stringify(block).slice(0, 60)).toMatchObject({
        label: "PNG image",
        evidence: "media-block",
      });
      expect(inspectToolResult({ content: [block] }, { allowedMediaTypes: ["image/*"] })).toBeUndefined();
      expect(inspectToolResult({ content: [block] }, { allowedMediaTypes: ["image/png"] })).toBeUndefined();
      expect(inspectToolResult({ content: [block] }, { allowedMediaTypes: ["image/jpeg"] })).toBeDefined();
    }
    expect(
      inspectToolResult({ content: [{ type: "input_audio", input_audio: { data: "AAAA", format: "wav" } }] }, none),
    ).toMatchObject({ mediaType: "audio/wav" });
    expect(
      inspectToolResult(
        { content: [{ type: "image", url: "https://example.com/a.png" }] },
        { allowedMediaTypes: ["image/*"] },
      ),
    ).toBeUndefined();
    expect(
      inspectToolResult({ content: [{ type: "file", file: { file_data: "x", filename: "a.pdf" } }] }, none)?.fileName,
    ).toBe("a.pdf");
  });

  it("lets text files through as blocks and catches binary text blocks", () => {
    expect(
      inspectToolResult(
        { content: [{ type: "file", source_type: "text", mime_type: "text/plain", text: "hello" }] },
        none,
      ),
    ).toBeUndefined();
    expect(inspectToolResult({ content: [{ type: "text", text: makePng().toString("utf8") }] }, none)).toMatchObject({
      label: "PNG image",
    });
  });

  it("reads a declared media type from the message metadata", () => {
    expect(
      inspectToolResult({ content: "AAAA", response_metadata: { content_type: "application/zip" } }, none),
    ).toMatchObject({
      evidence: "declared-media-type",
      mediaType: "application/zip",
    });
    expect(
      inspectToolResult({ content: "{}", additional_kwargs: { mimeType: "application/json; charset=utf-8" } }, none),
    ).toBeUndefined();
    expect(
      inspectToolResult(
        { content: "AAAA", response_metadata: { mimeType: "application/zip" } },
        { allowedMediaTypes: ["*/*"] },
      ),
    ).toBeUndefined();
  });

  it("never lets binary text through, whatever is allowed", () => {
    expect(inspectToolResult({ content: makePng().toString("utf8") }, { allowedMediaTypes: ["*/*"] })).toBeDefined();
  });

  it("never throws on any content shape", () => {
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true, withNullPrototype: true }),
        fc.anything(),
        (content, meta) => {
          inspectToolResult({ content, response_metadata: meta, additional_kwargs: meta }, none);
          inspectToolResult({ content: [content, { type: "image", data: content, mimeType: meta }] }, none);
        },
      ),
      { numRuns: 300 },
    );
  });
});
