import { describe, expect, it } from "vitest";
import {
  ableProgressGuard,
  callEvents,
  geminiCli,
  openHands,
  rooCode,
  type Baseline,
} from "../../bench/baselines/index.js";

type Step = { tool: string; args?: Record<string, unknown>; result?: string } | { human: true };

/** LangChain message dicts for a sequence of single tool calls and user messages. */
function thread(steps: Step[]): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [{ type: "human", content: "go" }];
  steps.forEach((step, i) => {
    if ("human" in step) {
      messages.push({ type: "human", content: "more" });
      return;
    }
    messages.push({ type: "ai", content: "", tool_calls: [{ id: `c${i}`, name: step.tool, args: step.args ?? {} }] });
    messages.push({ type: "tool", tool_call_id: `c${i}`, content: step.result ?? "ok" });
  });
  return messages;
}

const flagged = (baseline: Baseline, steps: Step[]) =>
  baseline.detect(callEvents(thread(steps))).map((f) => f.callIndex);
const repeat = (n: number, step: Step) => Array.from({ length: n }, () => step);
const scroll = (n: number) => ({ tool: "browser", args: { action: "scroll" }, result: `page part ${n}` });
const failing = { tool: "book", args: { id: 1 }, result: "Error: declined" };
const think = { tool: "think", args: { t: "hmm" }, result: "" };

describe("re-implemented baselines", () => {
  it("gemini-cli halts at the 5th identical call in a row, results unseen; a user message starts over", () => {
    expect(flagged(geminiCli, repeat(6, scroll(1)))).toEqual([4, 5]);
    expect(flagged(geminiCli, [...repeat(4, scroll(1)), { human: true }, ...repeat(4, scroll(1))])).toEqual([]);
    expect(flagged(geminiCli, [0, 1, 2, 3, 4, 5].map(scroll))).toEqual([4, 5]);
  });

  it("Roo Code refuses the 4th identical call in a row, then counts afresh", () => {
    expect(flagged(rooCode, repeat(8, failing))).toEqual([3, 7]);
    expect(flagged(rooCode, [failing, think, failing, think, failing, think, failing])).toEqual([]);
  });

  it("OpenHands stops after 4 identical action/observation pairs, or 3 identical failing actions", () => {
    expect(flagged(openHands, repeat(5, { tool: "ls", result: "same" }))).toEqual([4]);
    expect(flagged(openHands, [0, 1, 2, 3, 4].map(scroll))).toEqual([]);
    expect(flagged(openHands, repeat(4, failing))).toEqual([3]);
    expect(flagged(openHands, [failing, think, failing, think, failing, think, failing])).toEqual([]);
  });

  it("able-harness-kit's progress guard blocks the 3rd same-args call of a tool whose last two results match", () => {
    expect(flagged(ableProgressGuard, [failing, think, failing, think, failing])).toEqual([4]);
    expect(flagged(ableProgressGuard, [0, 1, 2, 3].map(scroll))).toEqual([]);
    expect(flagged(ableProgressGuard, [failing, { tool: "book", args: { id: 2 } }, failing, failing])).toEqual([]);
  });
});
