import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { reviewText } from "../../../src/guards/binary/review.js";
import { detectEncoding } from "../../../src/guards/binary/encoding.js";
import { findRawRegions } from "../../../src/guards/binary/raw.js";
import { binaryFiles, makeNoise } from "./fixtures.js";

/**
 * The guard reads every character now (samples missed files in the middle of large results), so
 * its cost must stay linear, and what it keeps must be exactly the text around what it removes.
 */

const FILES = Object.values(binaryFiles());

describe("the binary review's cost", () => {
  it("reads 10 MB of prose, JSON, base64, hex (unbroken, wrapped, a list of hashes) in linear time", () => {
    const texts: Record<string, string> = {
      prose: "The quick brown fox jumps over the lazy dog, again and again, for the benchmark.\n".repeat(125_000),
      json: JSON.stringify(
        Array.from({ length: 60_000 }, (_, i) => ({
          id: i,
          name: `user ${i}`,
          note: "ünïcødé text and numbers 1234567890",
        })),
      ),
      base64: makeNoise(7_500_000, 3).toString("base64"),
      hex: makeNoise(5_000_000, 4).toString("hex"),
      wrappedHex: (
        makeNoise(5_000_000, 5)
          .toString("hex")
          .match(/.{1,60}/g) ?? []
      ).join("\n"),
      hashList: Array.from({ length: 150_000 }, (_, i) => makeNoise(32, i).toString("hex")).join("\n"),
    };
    const times: Record<string, number> = {};
    for (const [name, text] of Object.entries(texts)) {
      // CPU time: the cores are shared with other processes, wall time says more about them than about this code.
      const started = process.cpuUsage();
      reviewText(text);
      const used = process.cpuUsage(started);
      times[name] = Math.round((used.user + used.system) / 1000);
      const perMb = times[name]! / (text.length / 1e6);
      expect(perMb, name).toBeLessThan(150);
    }
    console.log(`binary review of ~10 MB: ${JSON.stringify(times)} ms CPU`);
  });
});

describe("what the review keeps (properties)", () => {
  const proseArb = fc
    .array(
      fc.constantFrom(
        "Revenue grew 12% in Q3.",
        "See the table below.",
        "日本語のテキスト",
        "naïve café",
        "id,amount\n1,2",
        "  ",
        "\n",
        '{"k": [1, 2]}',
      ),
      { maxLength: 40 },
    )
    .map((parts) => parts.join(" "));
  const formArb = fc.constantFrom(
    (file: Buffer) => file.toString("base64"),
    (file: Buffer) => `data:application/octet-stream;base64,${file.toString("base64")}`,
    (file: Buffer) => `payload_${file.toString("base64")}`,
    (file: Buffer) => file.toString("hex"),
  );

  it("a payload dropped anywhere into text is removed, and all the text around it is kept, in order", () => {
    fc.assert(
      fc.property(proseArb, proseArb, fc.constantFrom(...FILES), formArb, (before, after, file, form) => {
        const text = `${before}\n${form(file)}\n${after} The end of the report.`;
        const review = reviewText(text);
        expect(review).toBeDefined();
        const output = review!.kind === "cleaned" ? review!.text : "";
        if (review!.kind === "cleaned") {
          expect(output.startsWith(`${before}\n`)).toBe(true);
          expect(output).toContain(`\n${after} The end of the report.`);
        }
        const middle = file.subarray(file.length >> 1, (file.length >> 1) + 24);
        expect(output).not.toContain(middle.toString("base64").slice(4, 28));
        expect(output).not.toContain(middle.toString("hex"));
      }),
      { numRuns: 200 },
    );
  });

  it("never throws, and text without binary comes back untouched", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary", maxLength: 2000 }), proseArb), (text) => {
        const review = reviewText(text);
        if (review === undefined) return;
        if (review.kind === "cleaned" && review.removed.length === 0) expect(review.encoding).toBeDefined();
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(proseArb, (text) => {
        expect(reviewText(text)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});

describe("printable ASCII", () => {
  // reviewText skips both readings for such a text: it must be that neither can find anything in it.
  const PLAIN = [..."\t\n\r"].concat(Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)));

  it("holds no wrong encoding and no raw bytes", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PLAIN), { maxLength: 1200 }), (chars) => {
        const text = chars.join("");
        expect(detectEncoding(text)).toBeUndefined();
        expect(findRawRegions(text)).toEqual([]);
      }),
      { numRuns: 500 },
    );
    for (const text of ["\t".repeat(600), "\r\n".repeat(300), "~".repeat(5000), " ".repeat(9)]) {
      expect(detectEncoding(text)).toBeUndefined();
      expect(findRawRegions(text)).toEqual([]);
    }
  });

  it("is still reviewed for every other binary form", () => {
    const png = binaryFiles()["chart.png"]!;
    expect(
      reviewText(`The chart you asked for: data:image/png;base64,${png.toString("base64")}, as drawn.`)?.kind,
    ).toBe("cleaned");
    expect(reviewText(png.toString("hex"))?.kind).toBe("binary");
    expect(reviewText(JSON.stringify({ type: "Buffer", data: [...png] }))?.kind).toBe("binary");
  });
});
