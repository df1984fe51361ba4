import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { readMark } from "../../../src/core/marks.js";
import { validatorMarkOf } from "../../../src/guards/output/marks.js";
import { RunGate } from "../../../src/guards/output/runGate.js";

// afterBatch looks for the validator's marks only on messages whose mark names the guard: a
// precondition of validatorMarkOf's own. Pinned both ways: over marks of every shape, and on
// batches where the answer (a stop notice or none) must be what the marks say.

const GUARD = "OutputValidatorMiddleware";
const anything = fc.oneof(fc.constant(undefined), fc.constant(null), fc.string({ maxLength: 3 }), fc.integer());
const mark = fc.oneof(
  anything,
  fc.record(
    {
      guard: fc.oneof(fc.constantFrom(GUARD, "LoopGuardMiddleware"), anything),
      action: fc.oneof(fc.constantFrom("warn", "directive", "stop"), anything),
      outcome: fc.oneof(
        fc.constantFrom("invalid_output", "blocked", "instructions_flagged", "replaced_result"),
        anything,
      ),
      reason: fc.constantFrom("invalid", "bad"),
    },
    { requiredKeys: [] },
  ),
);
const answer = (id: string, m: unknown) =>
  new ToolMessage({
    content: "result",
    tool_call_id: id,
    name: "get_plan",
    response_metadata: m === undefined ? {} : { harness_kit: m },
  });

describe("RunGate.afterBatch", () => {
  it("reads a validator mark only where the message's mark names the guard", () => {
    fc.assert(
      fc.property(mark, (m) => {
        const message = answer("c1", m);
        if (validatorMarkOf(message, GUARD) !== undefined) expect(readMark(message)?.guard).toBe(GUARD);
      }),
      { numRuns: 2000 },
    );
  });

  it("ends the run exactly when a validator mark in the last batch says stop", async () => {
    const gate = new RunGate({
      guard: GUARD,
      onSignal: undefined,
      observeOnly: false,
      writeTools: new Set(),
      run: { guard: GUARD, isChecked: () => true, killSwitch: undefined },
    });
    await fc.assert(
      fc.asyncProperty(fc.array(mark, { minLength: 1, maxLength: 4 }), async (marks) => {
        const calls = marks.map((_, i) => ({ id: `c${i}`, name: "get_plan", args: {} }));
        const messages: BaseMessage[] = [
          new AIMessage({ content: "", tool_calls: calls }),
          ...marks.map((m, i) => answer(`c${i}`, m)),
        ];
        const stops = messages.some((m) => validatorMarkOf(m, GUARD)?.action === "stop");
        const notice = await gate.afterBatch(messages);
        expect(notice !== undefined).toBe(stops);
      }),
      { numRuns: 300 },
    );
  });
});
