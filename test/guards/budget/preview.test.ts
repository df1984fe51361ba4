import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { approximateTokens, createMeasure, type CountTokens } from "../../../src/guards/budget/measure.js";
import { cutHeadTail, emptyCut, fitToBudget } from "../../../src/guards/budget/preview.js";

const textArb = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 3000 }),
  fc.array(fc.string({ maxLength: 80 }), { maxLength: 200 }).map((lines) => lines.join("\n")),
  fc.string({ unit: "binary", maxLength: 2000 }),
);

function hasLoneSurrogateAtEdge(text: string): boolean {
  if (text.length === 0) return false;
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  return (first >= 0xdc00 && first <= 0xdfff) || (last >= 0xd800 && last <= 0xdbff);
}

describe("cutHeadTail", () => {
  it("keeps a prefix and a suffix within the room, and head + omitted + tail = the whole text", () => {
    fc.assert(
      fc.property(
        textArb.filter((t) => t.length > 1),
        fc.nat({ max: 4000 }),
        (text, room) => {
          const cut = cutHeadTail(text, room);
          expect(cut.head.length + cut.omitted + cut.tail.length).toBe(text.length);
          expect(text.startsWith(cut.head)).toBe(true);
          expect(text.endsWith(cut.tail)).toBe(true);
          expect(cut.head.length + cut.tail.length).toBeLessThanOrEqual(room);
          expect(cut.omitted).toBeGreaterThanOrEqual(1);
          expect(cut.omittedFrom).toBe(cut.head.length);
          expect(cut.tailFrom).toBe(text.length - cut.tail.length);
        },
      ),
    );
  });

  it("never splits a surrogate pair of well-formed text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 2, maxLength: 500 }), fc.nat({ max: 600 }), (text, room) => {
        const cut = cutHeadTail(text, room);
        expect(hasLoneSurrogateAtEdge(cut.head)).toBe(false);
        expect(hasLoneSurrogateAtEdge(cut.tail)).toBe(false);
      }),
    );
  });

  it("moves each cut to a nearby line break", () => {
    const text = Array.from({ length: 100 }, (_, i) => `line number ${i}`).join("\n");
    const cut = cutHeadTail(text, 400);
    expect(cut.head.endsWith("\n")).toBe(true);
    expect(text[cut.tailFrom - 1]).toBe("\n");
    expect(cut.head.split("\n")[0]).toBe("line number 0");
    expect(cut.tail.endsWith("line number 99")).toBe(true);
  });

  it("cuts inside a line when no break is close", () => {
    const text = "x".repeat(10_000);
    const cut = cutHeadTail(text, 1000);
    expect(cut.head.length).toBe(500);
    expect(cut.tail.length).toBe(500);
    expect(emptyCut(text)).toMatchObject({ head: "", tail: "", omitted: 10_000 });
  });
});

/** Counters a user might plug in: words, bytes, a per-character weight. */
const counters: Record<string, CountTokens> = {
  approximate: approximateTokens,
  words: (text) => text.split(/\s+/).filter(Boolean).length,
  utf8Bytes: (text) => new TextEncoder().encode(text).length,
  heavy: (text) => (text.length === 0 ? 0 : text.length * 2 + 3),
};

describe("fitToBudget", () => {
  it("never exceeds the budget, in characters or in any token count", () => {
    fc.assert(
      fc.property(
        textArb,
        fc.integer({ min: 0, max: 3000 }),
        fc.constantFrom(...Object.keys(counters)),
        fc.constantFrom("chars", "tokens"),
        fc.integer({ min: -100, max: 5000 }),
        (text, budget, counter, unit, firstRoom) => {
          const measure = createMeasure(unit as "chars" | "tokens", unit === "tokens" ? counters[counter] : undefined);
          const render = (room: number) => `[frame]\n${text.slice(0, room)}\n[end]`;
          const out = fitToBudget(render, budget, measure, firstRoom);
          expect(measure.text(out)).toBeLessThanOrEqual(budget);
        },
      ),
    );
  });

  it("uses the room it is given when that fits", () => {
    const measure = createMeasure("chars");
    const out = fitToBudget((room) => "a".repeat(room), 100, measure, 100);
    expect(out).toHaveLength(100);
  });

  it("falls back to the frame alone, then to a clipped frame", () => {
    const measure = createMeasure("chars");
    expect(fitToBudget((room) => `frame${"a".repeat(room)}`, 5, measure, 50)).toBe("frame");
    expect(fitToBudget((room) => `frame${"a".repeat(room)}`, 3, measure, 50)).toBe("fra");
  });

  it("survives a token counter that throws or answers nonsense", () => {
    for (const broken of [
      () => Number.NaN,
      () => -1,
      () => {
        throw new Error("tokenizer down");
      },
    ]) {
      const measure = createMeasure("tokens", broken as CountTokens);
      const out = fitToBudget((room) => "word ".repeat(room), 50, measure, 1000);
      expect(approximateTokens(out)).toBeLessThanOrEqual(50);
    }
  });
});
