import { describe, expect, it } from "vitest";
import { createMeasure } from "../../../src/guards/budget/measure.js";
import { cutReadBack, fittingLineWindow } from "../../../src/guards/budget/lineWindow.js";
import type { LineReader } from "../../../src/offload/OffloadStore.js";

const chars = createMeasure("chars");
const reader: LineReader = {
  tool: "read_file",
  window: (offset, limit) => `use read_file with offset ${offset} and limit ${limit}`,
};
const lines = (count: number, width: number) =>
  Array.from({ length: count }, (_, i) => `${String(i).padStart(5, "0")} ${"w".repeat(width - 6)}`).join("\n");

describe("fittingLineWindow", () => {
  it("starts at the line holding the character and counts the lines that fit with room for a header", () => {
    const text = lines(200, 400);
    const window = fittingLineWindow(text, 25 * 401 + 10, 20_000, chars);
    expect(window.offset).toBe(25);
    expect(window.limit * 401).toBeLessThanOrEqual(20_000 - 400);
    expect((window.limit + 1) * 401).toBeGreaterThan(20_000 - 400);
  });

  it("names at least one line, even one longer than the budget", () => {
    expect(fittingLineWindow("x".repeat(50_000), 0, 20_000, chars)).toEqual({ offset: 0, limit: 1, lineTooLong: true });
    expect(fittingLineWindow(lines(3, 100), 0, 20_000, chars)).toEqual({ offset: 0, limit: 3 });
  });
});

describe("cutReadBack", () => {
  const read = `@@ lines 26-125 of 1000 | next offset 125 @@\n${lines(100, 400)}`;

  it("keeps the header and the whole lines that fit, and names the window after them", () => {
    const out = cutReadBack(read, 25, 20_000, chars, reader);
    expect(out.length).toBeLessThanOrEqual(20_000);
    expect(out.startsWith("@@ lines 26-125 of 1000")).toBe(true);
    const shown = out.split("\n").filter((line) => /^\d{5} w+$/.test(line));
    expect(shown[0]).toMatch(/^00000 /);
    expect(out).toContain(`Only lines 26 to ${25 + shown.length} of this read fit`);
    expect(out).toContain(`use read_file with offset ${25 + shown.length} and limit `);
    expect(out).toContain("nothing was stored again");
  });

  it("cuts a first line longer than the budget to its head and moves on past it", () => {
    const out = cutReadBack(`@@ lines 4-4 of 9 @@\n${"😀".repeat(30_000)}`, 3, 20_000, chars, reader);
    expect(out.length).toBeLessThanOrEqual(20_000);
    expect(out).toContain("Line 4 alone is longer than the 20000 characters");
    expect(out).toContain("use read_file with offset 4 and limit 1");
    expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(out)).toBe(false);
  });

  it("reads on inside a first line longer than the budget with the call it is given, from where the head ends", () => {
    const out = cutReadBack(
      `@@ lines 1-1 of 1 @@\n${"x".repeat(50_000)}`,
      0,
      20_000,
      chars,
      reader,
      (shown) => `read from ${shown}`,
    );
    const shown = Number(/only its first (\d+) characters/.exec(out)![1]);
    expect(out).toContain(`To read on, read from ${shown}.`);
    expect(out).not.toContain("use read_file");
  });
});
