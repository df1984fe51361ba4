import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import { corpus, TEXT_CLASSES } from "../../../bench/estimateCorpus.js";
import { estimateTokens, RequestMeter } from "../../../src/guards/overflow/estimate.js";
import { calibration } from "../../../src/guards/overflow/window.js";

// The bounds issue 31 set for the default estimate, against both tokenizers OpenAI's models use.
const FLOOR = 0.9;
const PROSE_CEILING = 1.15;
const tokenizers = { o200k_base: getEncoding("o200k_base"), cl100k_base: getEncoding("cl100k_base") };

describe("the default estimate on the generated corpus (bench/estimateCorpus.ts)", () => {
  // Two seeds: the bounds hold for the generators, not for one draw of them.
  const texts = [...corpus(20_000, 1), ...corpus(8_000, 2)];

  for (const [name, tokenizer] of Object.entries(tokenizers)) {
    it(`never undercounts by more than 10%, and overcounts English prose by at most 15%, against ${name}`, () => {
      const ratios: Record<string, number[]> = {};
      for (const { kind, text } of texts)
        (ratios[kind] ??= []).push(estimateTokens(text) / tokenizer.encode(text).length);
      expect(Object.keys(ratios).sort()).toEqual([...TEXT_CLASSES].sort());
      for (const [kind, values] of Object.entries(ratios)) {
        for (const ratio of values) {
          expect(ratio, `${kind} against ${name}`).toBeGreaterThanOrEqual(FLOOR);
          if (kind === "prose") expect(ratio, `prose against ${name}`).toBeLessThanOrEqual(PROSE_CEILING);
        }
      }
    });
  }

  it("holds message by message too: the sum of small pieces stays above the floor", () => {
    const tokenizer = tokenizers.cl100k_base;
    for (const { kind, text } of corpus(6_000, 3)) {
      let estimated = 0;
      let real = 0;
      for (let i = 0; i < text.length; i += 300) {
        const piece = text.slice(i, i + 300);
        estimated += estimateTokens(piece);
        real += tokenizer.encode(piece).length;
      }
      expect(estimated / real, kind).toBeGreaterThanOrEqual(FLOOR);
    }
  });

  it("counts a run of one punctuation character as the tokenizers do: rules merge, brackets and quotes do not", () => {
    for (const code of Array.from({ length: 94 }, (_, i) => 33 + i)) {
      const c = String.fromCharCode(code);
      if (/[A-Za-z0-9]/.test(c)) continue;
      for (const n of [4, 8, 9, 33, 64, 200]) {
        const text = c.repeat(n);
        for (const [name, encoding] of Object.entries(tokenizers)) {
          const real = encoding.encode(text).length;
          expect(estimateTokens(text), `${JSON.stringify(c)} × ${n}, ${name}`).toBeGreaterThanOrEqual(real * 0.9);
          // A rule of dashes once counted a token per three characters: 21 times the real count.
          if ("#%*+-./=_~".includes(c))
            expect(estimateTokens(text), `${JSON.stringify(c)} × ${n}, ${name}`).toBeLessThanOrEqual(
              Math.max(4, real * 3),
            );
        }
      }
    }
  });

  it("is a pure function of the text and never negative", () => {
    for (const text of ["", " ", "\n\n\n", "a", "😀", "\ud83d", "\u0000\u0001", "x".repeat(100_000)]) {
      const n = estimateTokens(text);
      expect(n).toBeGreaterThanOrEqual(0);
      expect(Number.isInteger(n)).toBe(true);
      expect(estimateTokens(text)).toBe(n);
    }
    expect(estimateTokens("")).toBe(0);
  });
});

describe("calibration by the provider's reported input tokens", () => {
  const meter = new RequestMeter();
  const question = new HumanMessage("What does the report say about the database migration?".repeat(20));
  const estimate = meter.messages([question]);
  const answered = (input: number) => [
    question,
    new AIMessage({
      content: "ok",
      usage_metadata: { input_tokens: input, output_tokens: 1, total_tokens: input + 1 },
    }),
  ];
  const factor = (input: number) => calibration(answered(input), (end) => meter.messages(answered(input), 0, end), 0);

  it("learns a factor below 1 when the provider counts less than the estimate, and above 1 when it counts more", () => {
    expect(factor(Math.round(estimate * 0.8))).toBeCloseTo(0.8, 2);
    expect(factor(Math.round(estimate * 1.5))).toBeCloseTo(1.5, 2);
  });

  it("stays within [0.7, 4]", () => {
    expect(factor(Math.round(estimate * 0.2))).toBe(0.7);
    expect(factor(estimate * 10)).toBe(4);
  });

  it("is 1 without a reported count", () => {
    expect(calibration([question, new AIMessage("ok")], (end) => meter.messages([question], 0, end), 0)).toBe(1);
  });
});
