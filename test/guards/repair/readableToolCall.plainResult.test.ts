import { ToolMessage } from "@langchain/core/messages";
import { ToolInputParsingException } from "@langchain/core/tools";
import { GraphInterrupt } from "@langchain/langgraph";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { hasRanStamp } from "../../../src/core/marks.js";
import { degradedResult } from "../../../src/guards/repair/degradedResult.js";
import { readableToolCall } from "../../../src/guards/repair/readableToolCall.js";

// The tool side's early exit: a result degradedResult flags nothing in goes back as the very
// message the tool gave, stamped, in the promise step of the call; any other is answered in full.
// And a handler that throws at once is answered as one that rejects.

const bytes = (n: number) => JSON.stringify(Uint8Array.from({ length: n }, (_, i) => (i * 37) % 256));
const content: fc.Arbitrary<ToolMessage["content"]> = fc.oneof(
  fc.string(),
  fc.jsonValue().map((value) => JSON.stringify(value) ?? ""),
  fc.constantFrom(
    "",
    "[object Object]",
    "[object Map]",
    `[object ${"X".repeat(60)}]`,
    "[object Object] and more",
    '{"type":"Buffer","data":[104,105]}',
    '{"type":"Buffer","data":[104,105]',
    '{"type":"Buffer","data":[104,1050]}',
    '{"0":1}',
    '{"key":"k9","value":2}',
  ),
  fc.nat({ max: 12 }).map(bytes),
  fc.constant([]).map((): ToolMessage["content"] => []),
  fc.constant([]).map((): ToolMessage["content"] => [{ type: "text", text: "" }]),
);

const result = fc.record({ content, status: fc.constantFrom<"success" | "error">("success", "error") });

describe("readableToolCall's answer to a result", () => {
  it.each([false, true])(
    "is the tool's own message unless degradedResult flags it (observeOnly %s)",
    async (observeOnly) => {
      const wrap = readableToolCall({ guard: "ToolCallRepairMiddleware", observeOnly, onSignal: undefined }, undefined);
      await fc.assert(
        fc.asyncProperty(result, async ({ content, status }) => {
          const message = new ToolMessage({ content, status, tool_call_id: "c1", name: "lookup" });
          const request = { toolCall: { id: "c1", name: "lookup", args: {} }, state: { messages: [] } };
          const answer = (await wrap(request, () => Promise.resolve(message))) as ToolMessage;
          expect(hasRanStamp(answer)).toBe(true);
          const plain = status === "error" || degradedResult(content) === undefined;
          if (plain || observeOnly) {
            expect(answer).toBe(message);
            expect(answer.content).toBe(content);
          } else {
            expect(answer.content).not.toEqual(content);
          }
        }),
        { numRuns: 500 },
      );
    },
  );
});

describe("readableToolCall's answer to an exception", () => {
  it.each([false, true])(
    "is the same whether the handler throws at once or rejects (observeOnly %s)",
    async (observeOnly) => {
      const wrap = readableToolCall({ guard: "ToolCallRepairMiddleware", observeOnly, onSignal: undefined }, undefined);
      const tool = { name: "lookup", schema: z.object({ key: z.string() }), invoke: () => Promise.resolve("unused") };
      const errors = [
        new Error("disk on fire"),
        new TypeError("bad\n    at frame (x.js:1:1)"),
        new ToolInputParsingException("Received tool input did not match expected schema"),
        "a string thrown",
      ];
      for (const error of errors) {
        const request = () => ({
          toolCall: { id: "c1", name: "lookup", args: { key: 1 } },
          tool,
          state: { messages: [] },
        });
        const thrown = (await wrap(request(), () => {
          throw error;
        })) as ToolMessage;
        const rejected = (await wrap(request(), () => Promise.reject(error))) as ToolMessage;
        expect(thrown.content).toEqual(rejected.content);
        expect(thrown.status).toBe("error");
        expect(rejected.status).toBe("error");
        expect(hasRanStamp(thrown)).toBe(true);
      }
      const interrupt = new GraphInterrupt();
      const request = { toolCall: { id: "c1", name: "lookup", args: {} }, state: { messages: [] } };
      await expect(
        wrap(request, () => {
          throw interrupt;
        }),
      ).rejects.toBe(interrupt);
      await expect(wrap(request, () => Promise.reject(interrupt))).rejects.toBe(interrupt);
    },
  );
});
