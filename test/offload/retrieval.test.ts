import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createMeasure } from "../../src/guards/budget/measure.js";
import { renderMatches, renderSlice } from "../../src/guards/budget/readBack.js";
import { compileLinePattern, searchLines, type LinePattern } from "../../src/guards/budget/search.js";
import { createRetrievalTool } from "../../src/guards/budget/retrievalTool.js";
import { MemoryOffloadStore } from "../../src/offload/MemoryOffloadStore.js";
import type { OffloadStore } from "../../src/offload/OffloadStore.js";

const TEXT = Array.from({ length: 2000 }, (_, i) => `entry ${i}: ${i % 50 === 0 ? "FAILED" : "passed"}`).join("\n");
const whole = (text: string) => ({ text, start: 0, total: text.length });
const linePattern = (pattern: string) => compileLinePattern(pattern) as LinePattern;
const matches = (key: string, text: string, pattern: string, from: number, room: number) =>
  renderMatches(key, searchLines(text, linePattern(pattern), from, room, 1000), room);

describe("renderSlice", () => {
  it("returns the slice asked for and where to continue", () => {
    const out = renderSlice("k", whole(TEXT), 100, 50, 1000);
    expect(out).toBe(
      `[Characters 100 to 150 of ${TEXT.length} stored under "k". Continue with offset 150.]\n${TEXT.slice(100, 150)}`,
    );
    expect(renderSlice("k", whole(TEXT), TEXT.length - 10, undefined, 1000)).toContain(
      "This is the end of the result.",
    );
    expect(renderSlice("k", whole(TEXT), TEXT.length + 5, 10, 1000)).toBe(
      `[The result stored under "k" has ${TEXT.length} characters; offset ${TEXT.length + 5} is past its end.]`,
    );
    expect(renderSlice("k", whole(TEXT), -5, 10, 1000)).toContain(`[Characters 0 to 10 of`);
    // A page read around the offset renders the same as the whole text.
    const page = { text: TEXT.slice(100, 400), start: 100, total: TEXT.length };
    expect(renderSlice("k", page, 100, 50, 1000)).toBe(out);
    expect(renderSlice("k", page, 100, undefined, 1000)).toContain("Characters 100 to 400 of");
  });

  it("never returns more content than the room, nor half a surrogate pair", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 500 }),
        fc.nat({ max: 600 }),
        fc.option(fc.nat({ max: 600 }), { nil: undefined }),
        fc.nat({ max: 600 }),
        (text, offset, length, room) => {
          const out = renderSlice("k", whole(text), offset, length, room);
          const body = out.slice(out.indexOf("]\n") + 2);
          if (out.includes("]\n")) {
            expect(body.length).toBeLessThanOrEqual(room);
            expect(text).toContain(body);
            const last = body.charCodeAt(body.length - 1);
            if (body.length > 0) expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
          }
        },
      ),
    );
  });
});

describe("renderMatches", () => {
  it("lists matching lines with their numbers, the total, and where to continue", () => {
    const out = matches("k", TEXT, "FAILED", 0, 150);
    const lines = out.split("\n");
    expect(lines[0]).toMatch(
      /^\[40 lines match "FAILED" in the result stored under "k", shown as "line number: line"\. Shown: the first \d+; continue with offset \d+ and the same pattern\.\]$/,
    );
    expect(lines[1]).toBe("1: entry 0: FAILED");
    expect(lines[2]).toBe("51: entry 50: FAILED");
    const next = Number(/offset (\d+)/.exec(lines[0]!)![1]);
    const rest = matches("k", TEXT, "FAIL(ED)?", next, 100_000);
    expect(rest).toContain(`from character ${next} on`);
    expect(rest.split("\n").length - 1 + lines.length - 1).toBe(40);
  });

  it("cuts long lines around the match and falls back to literal text for invalid patterns", () => {
    const long = `${"a".repeat(5000)}NEEDLE${"b".repeat(5000)}`;
    const out = matches("k", long, "NEEDLE", 0, 10_000);
    expect(out).toContain("…");
    expect(out).toContain("NEEDLE");
    expect(out.length).toBeLessThan(700);
    expect(matches("k", "x\nxa(by", "a(b", 0, 1000)).toContain("2: xa(by");
    expect(matches("k", "x\nxa(by", "a(b", 0, 1000)).toContain("searched as plain text");
    expect(matches("k", "x\ny", "z+", 0, 100)).toBe(
      '[0 lines match /z+/ in the result stored under "k", shown as "line number: line".]',
    );
  });
});

describe("the retrieval tool", () => {
  async function ask(
    store: OffloadStore,
    input: Record<string, unknown>,
    limit = 1000,
    unit: "chars" | "tokens" = "chars",
  ) {
    const retrieval = createRetrievalTool(store, { limit, measure: createMeasure(unit) });
    return String(await retrieval.invoke(input as { key: string }));
  }

  it("answers within the budget, sliced or searched", async () => {
    const store = new MemoryOffloadStore();
    await store.put("k", TEXT);
    const slice = await ask(store, { key: "k", offset: 0, length: 100_000 });
    expect(slice.length).toBeLessThanOrEqual(1000);
    expect(slice).toContain(TEXT.slice(0, 500));
    const found = await ask(store, { key: "k", pattern: "FAILED" });
    expect(found.length).toBeLessThanOrEqual(1000);
    expect(found).toContain("40 lines match");
    const tokens = await ask(store, { key: "k", offset: "200" }, 300, "tokens");
    expect(Math.ceil(tokens.length / 4)).toBeLessThanOrEqual(300);
    expect(tokens).toContain("[Characters 200 to");
  });

  it("explains a missing key and a failing store instead of throwing", async () => {
    expect(await ask(new MemoryOffloadStore(), { key: "gone" })).toContain('Nothing is stored under the key "gone"');
    const broken: OffloadStore = {
      put: async () => undefined,
      get: async () => {
        throw new Error("connection reset\nstack line");
      },
    };
    expect(await ask(broken, { key: "k" })).toBe(
      'The result stored under "k" could not be read (connection reset). Try again later, or call the original tool again with narrower arguments.',
    );
  });
});
