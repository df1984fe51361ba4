import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createMeasure, splitContent, type Measure } from "../../../src/guards/budget/measure.js";
import type { PreviewFacts, PreviewOutcome } from "../../../src/guards/budget/texts.js";
import { assessContent, MIN_LIMIT, planBudget, renderBudgeted } from "../../../src/guards/budget/plan.js";

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

const outcomeArb: fc.Arbitrary<PreviewOutcome> = fc.oneof(
  fc.record({ kind: fc.constant("stored" as const), key: fc.stringMatching(/^[a-z_]{1,20}-[A-Za-z0-9_-]{1,40}$/) }),
  fc.record({
    kind: fc.constant("stored" as const),
    key: fc.constant("tool-call_1"),
    readHint: fc.constant(
      'use read_file with file_path "/large_tool_results/tool-call_1.txt" (offset and limit count lines)',
    ),
  }),
  fc.record({
    kind: fc.constant("not-stored" as const),
    reason: fc.option(fc.string({ maxLength: 150 }), { nil: undefined }),
  }),
);

const textArb = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 6000 }),
  fc.array(fc.string({ maxLength: 120 }), { maxLength: 400 }).map((lines) => lines.join("\n")),
  fc.integer({ min: 0, max: 60_000 }).map((n) => "lorem ipsum dolor ".repeat(Math.ceil(n / 18)).slice(0, n)),
);

const imageArb = fc
  .integer({ min: 0, max: 40_000 })
  .map((size) => ({ type: "image", mimeType: "image/png", data: "A".repeat(size) }));

const contentArb = fc.oneof(
  textArb,
  fc.tuple(textArb, fc.array(imageArb, { maxLength: 3 })).map(([text, images]) => [{ type: "text", text }, ...images]),
);

const unitArb = fc.constantFrom(
  { unit: "chars" as const, measure: createMeasure("chars") },
  { unit: "tokens" as const, measure: createMeasure("tokens") },
  { unit: "tokens" as const, measure: createMeasure("tokens", words) },
);

function budgeted(content: unknown, limit: number, measure: Measure, outcome: PreviewOutcome) {
  const assessment = assessContent(content, measure);
  const plan = planBudget(assessment, limit, measure);
  const facts: PreviewFacts = {
    tool: "fetch",
    chars: assessment.split.text.length,
    size: assessment.textSize,
    unit: measure.unit,
    limit,
    outcome,
  };
  return { assessment, plan, ...renderBudgeted(assessment, plan, facts, measure) };
}

describe("the budget's rendering", () => {
  it("never exceeds the limit, whatever the content, unit and outcome", () => {
    fc.assert(
      fc.property(
        contentArb,
        unitArb,
        fc.integer({ min: 0, max: 20_000 }),
        outcomeArb,
        (content, { unit, measure }, extra, outcome) => {
          const limit = MIN_LIMIT[unit] + extra;
          const { assessment, content: out } = budgeted(content, limit, measure, outcome);
          fc.pre(assessment.size > limit);
          expect(assessContent(out, measure).size).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("head + tail + the omitted count equal the original text, and the preview shows head and tail verbatim", () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: 0, max: 5000 }), outcomeArb, (text, extra, outcome) => {
        const limit = MIN_LIMIT.chars + extra;
        fc.pre(text.length > limit);
        const { content, cut } = budgeted(text, limit, createMeasure("chars"), outcome);
        const preview = content as string;
        const omitted = Number(/\[\.\.\. (\d+) characters omitted \.\.\.\]/.exec(preview)![1]);
        expect(cut!.head.length + omitted + cut!.tail.length).toBe(text.length);
        expect(preview).toContain(cut!.head.replace(/\n$/, ""));
        expect(preview).toContain(cut!.tail);
        expect(preview).toContain(`fetch returned ${text.length} characters`);
      }),
      { numRuns: 200 },
    );
  });

  it("says how to read the rest when stored, and that it was not kept otherwise", () => {
    const text = "x".repeat(50_000);
    const stored = budgeted(text, 2000, createMeasure("chars"), { kind: "stored", key: "fetch-call_9" })
      .content as string;
    expect(stored).toContain('The full result is stored under the key "fetch-call_9".');
    expect(stored).toMatch(/To read it, call read_stored_result with key "fetch-call_9" and offset \d+/);
    const lost = budgeted(text, 2000, createMeasure("chars"), {
      kind: "not-stored",
      reason: "storing them failed: disk full",
    }).content as string;
    expect(lost).toMatch(/The omitted \d+ characters were not kept \(storing them failed: disk full\)/);
    expect(lost).not.toContain("stored under");
  });
});

describe("media blocks", () => {
  it("measures base64 blocks by their size", () => {
    const content = [
      { type: "text", text: "caption" },
      { type: "image", mimeType: "image/png", data: "A".repeat(10_000) },
    ];
    expect(assessContent(content, createMeasure("chars")).size).toBe(7 + 10_000);
    expect(assessContent(content, createMeasure("tokens")).size).toBe(2 + 2500);
    expect(splitContent(content).media).toHaveLength(1);
  });

  it("replaces an oversized image by a note and keeps the text", () => {
    const content = [
      { type: "text", text: "caption" },
      { type: "image", mimeType: "image/png", data: "A".repeat(50_000) },
    ];
    const { content: out, plan } = budgeted(content, 20_000, createMeasure("chars"), {
      kind: "not-stored",
      reason: undefined,
    });
    expect(plan.dropped).toHaveLength(1);
    expect(plan.cutText).toBe(false);
    expect(out).toEqual([
      {
        type: "text",
        text:
          "caption\n[Removed a media block too large for this result and not kept: image (image/png, 50000 characters). " +
          "If you need what it shows, use a tool that describes or extracts it as text.]",
      },
    ]);
  });

  it("keeps images that fit beside the text, in order, and gives the text at least half the budget", () => {
    const small = { type: "image", mimeType: "image/png", data: "B".repeat(3000) };
    const large = { type: "image", mimeType: "image/jpeg", data: "C".repeat(9000) };
    const content = [{ type: "text", text: "t".repeat(30_000) }, small, large];
    const { content: out, plan } = budgeted(content, 20_000, createMeasure("chars"), { kind: "stored", key: "k-1" });
    expect(plan.kept.map((p) => p.block)).toEqual([small]);
    expect(plan.dropped.map((p) => p.block)).toEqual([large]);
    expect(plan.textRoom).toBe(17_000);
    const blocks = out as Array<{ type: string; text?: string }>;
    expect(blocks[1]).toBe(small);
    expect(blocks[0]!.text).toContain("[Removed a media block");
    expect(blocks[0]!.text!.length).toBeLessThanOrEqual(17_000);
  });
});
