import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { hasStoredResults } from "../../../src/guards/budget/storedSoFar.js";

/** A message of each kind that matters: plain, a stored result's preview, a summary. */
function messageOf(kind: "plain" | "stored" | "summary", i: number): BaseMessage {
  if (kind === "summary")
    return new HumanMessage({ content: "summary", additional_kwargs: { lc_source: "summarization" } });
  if (kind === "plain")
    return i % 2 ? new AIMessage(`step ${i}`) : new ToolMessage({ content: "ok", tool_call_id: `c${i}` });
  return new ToolMessage({
    content: "preview",
    tool_call_id: `c${i}`,
    response_metadata: {
      harness_kit: {
        v: 1,
        guard: "ToolResultBudgetMiddleware",
        action: "directive",
        outcome: "replaced_result",
        original: { fingerprint: "f", size: 9, offloadKey: `k${i}` },
      },
    },
  });
}

describe("hasStoredResults", () => {
  it("answers as a scan of the whole history would, as the history grows and is rewritten", () => {
    const kind = fc.constantFrom<"plain" | "stored" | "summary">(
      "plain",
      "plain",
      "plain",
      "plain",
      "stored",
      "summary",
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(kind, fc.boolean()), { minLength: 1, maxLength: 40 }), (steps) => {
        let history: BaseMessage[] = [new HumanMessage("go")];
        for (const [i, [k, rewrite]] of steps.entries()) {
          // A rewrite keeps the first message and replaces the rest, as a trim does.
          history = rewrite ? [history[0]!, messageOf(k, i)] : [...history, messageOf(k, i)];
          const scanned = history.some(
            (m) =>
              m.additional_kwargs?.lc_source === "summarization" ||
              JSON.stringify(m.response_metadata ?? {}).includes("offloadKey"),
          );
          expect(hasStoredResults(history)).toBe(scanned);
        }
      }),
      { numRuns: 200 },
    );
  });
});
