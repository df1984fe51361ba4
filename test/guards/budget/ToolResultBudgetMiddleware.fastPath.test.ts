import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { Signal } from "../../../src/core/signals.js";
import {
  ToolResultBudgetMiddleware,
  type ToolResultBudgetOptions,
} from "../../../src/guards/budget/ToolResultBudgetMiddleware.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";

// The budget's fast path: a string result no longer than the least limit its call can get is
// left alone unmeasured. This pins that the full path (limitFor, the measure, fit) answers the same.

type Wrap = ToolResultBudgetMiddleware["wrapToolCall"];

const TOOLS = ["fetch", "search", "lookup"] as const;

/** Token counters: the default, one that counts more tokens than characters, one that throws. */
const counters = {
  default: undefined,
  double: (text: string) => text.length * 2,
  throws: () => {
    throw new Error("no tokenizer");
  },
};

const options = fc
  .record({
    unit: fc.constantFrom<"chars" | "tokens">("chars", "tokens"),
    counter: fc.constantFrom<keyof typeof counters>("default", "double", "throws"),
    limit: fc.option(fc.integer({ min: 1000, max: 6000 }), { nil: undefined }),
    searchLimit: fc.option(fc.integer({ min: 1000, max: 6000 }), { nil: undefined }),
    turnLimit: fc.option(fc.integer({ min: 1000, max: 8000 }), { nil: undefined }),
    observeOnly: fc.boolean(),
  })
  .map((o): ToolResultBudgetOptions => ({
    unit: o.unit,
    ...(o.unit === "tokens" && o.counter !== "default" ? { countTokens: counters[o.counter] } : {}),
    ...(o.limit !== undefined ? { limit: o.limit } : {}),
    ...(o.searchLimit !== undefined ? { toolLimits: { search: o.searchLimit } } : {}),
    ...(o.turnLimit !== undefined ? { turnLimit: o.turnLimit } : {}),
    observeOnly: o.observeOnly,
  }));

/** A result's length: near the fast path's bound, near four times it (tokens), or anywhere below. */
const length = fc.record({
  near: fc.constantFrom("floor", "fourFloors", "below"),
  offset: fc.integer({ min: -3, max: 3 }),
  share: fc.double({ min: 0, max: 1, noNaN: true }),
});

/** Text of exactly `n` characters: prose, JSON-like, accented or astral characters. */
function textOf(seed: string, n: number): string {
  const unit = seed === "" ? "a" : seed;
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
}

describe("ToolResultBudgetMiddleware's fast path", () => {
  it("answers every string result as the full path does", async () => {
    await fc.assert(
      fc.asyncProperty(
        options,
        fc.constantFrom(...TOOLS),
        fc.integer({ min: 1, max: 4 }),
        length,
        fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('{"key":"k9","value":2}', "é", "😀 ")),
        async (o, tool, calls, size, seed) => {
          const answers = [];
          const signals: Signal[][] = [[], []];
          for (const full of [false, true]) {
            const budget = new ToolResultBudgetMiddleware({
              ...o,
              store: new MemoryOffloadStore(),
              onSignal: (signal) => signals[full ? 1 : 0]!.push(signal),
            });
            const inner = budget as unknown as { floor: number; toolFloors: ReadonlyMap<string, number> };
            const floor = inner.toolFloors.get(tool) ?? inner.floor;
            const n = Math.max(
              0,
              size.near === "floor"
                ? floor + size.offset
                : size.near === "fourFloors"
                  ? 4 * floor + size.offset
                  : Math.floor(size.share * floor),
            );
            // The full path: no call can get a limit this low, so every result is measured.
            if (full) Object.assign(budget, { floor: -1, toolFloors: new Map() });
            const turn = new AIMessage({
              content: "",
              tool_calls: Array.from({ length: calls }, (_, i) => ({ id: `call_${i}`, name: tool, args: { i } })),
            });
            const request = {
              toolCall: { id: "call_0", name: tool, args: { i: 0 } },
              tool: undefined,
              state: { messages: [new HumanMessage("go"), turn] },
              runtime: {},
            } as unknown as Parameters<Wrap>[0];
            const result = new ToolMessage({ content: textOf(seed, n), tool_call_id: "call_0", name: tool });
            answers.push(await budget.wrapToolCall(request, (async () => result) as Parameters<Wrap>[1]));
          }
          expect(answers[0]).toEqual(answers[1]);
          expect(signals[0]).toEqual(signals[1]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
