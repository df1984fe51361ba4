import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { palette, renderInspect, wrapText } from "../../src/cli/render.js";
import type { InspectReport } from "../../src/replay/inspect.js";

const reason = `"job_status" keeps returning nothing new for the same arguments (4 calls, nothing changed in between); ${"and more words ".repeat(12)}end.`;

const report: InspectReport = {
  thread: "t1",
  source: "t1.json",
  messages: 4,
  toolCalls: 2,
  guards: ["ProgressAwareLoopGuardMiddleware"],
  orderSource: "the order given",
  rows: [
    {
      callIndex: 0,
      toolCallId: "c0",
      tool: "job_status",
      messageIndex: 1,
      argsFingerprint: "0123456789abcdef",
      observation: { sameArgsRepeatCount: 0, newInformationDelta: 1, status: "success", resultSize: 120 },
      decisions: [],
    },
    {
      callIndex: 1,
      toolCallId: "c1",
      tool: "job_status",
      messageIndex: 3,
      argsFingerprint: "0123456789abcdef",
      observation: { sameArgsRepeatCount: 1, newInformationDelta: 0, status: "success", resultSize: 120 },
      decisions: [{ guard: "ProgressAwareLoopGuardMiddleware", action: "directive", reason }],
    },
  ],
};

describe("inspect output never cuts a decision", () => {
  it("wraps the decision under its column at a terminal's width, keeping every word", () => {
    const lines = renderInspect(report, palette(false), 100).split("\n");
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    const row = lines.findIndex((line) => line.includes("directive"));
    const column = lines[row]!.indexOf("directive");
    const continuation = lines
      .slice(row + 1)
      .filter((line) => line.startsWith(" ".repeat(column)) && line.trim() !== "");
    expect(continuation.length).toBeGreaterThan(1);
    const text = [lines[row]!.slice(column), ...continuation.map((line) => line.slice(column))].join(" ");
    expect(text).toBe(`directive ProgressAwareLoopGuardMiddleware: ${reason}`);
  });

  it("prints each decision whole on its row without a width (not a terminal)", () => {
    const out = renderInspect(report, palette(false));
    expect(out).toContain(`directive ProgressAwareLoopGuardMiddleware: ${reason}`);
  });

  it("wrapText: lines within the width, and the words joined back are the text", () => {
    const word = fc.string({ minLength: 1, maxLength: 30 }).filter((w) => !w.includes(" "));
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 40 }), fc.integer({ min: 5, max: 60 }), (words, width) => {
        const lines = wrapText(words.join(" "), width);
        for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
        expect(lines.join("").replaceAll(" ", "")).toBe(words.join(""));
        if (words.every((w) => w.length <= width)) expect(lines.join(" ")).toBe(words.join(" "));
      }),
    );
  });
});
