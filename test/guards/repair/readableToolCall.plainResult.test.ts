import { ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasRanStamp } from "../../../src/core/marks.js";
import { degradedResult } from "../../../src/guards/repair/degradedResult.js";
import { readableToolCall } from "../../../src/guards/repair/readableToolCall.js";

// The tool side's early exit: a result degradedResult flags nothing in goes back as the very
// message the tool gave, stamped, in the promise step of the call; any other is answered in full.

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
