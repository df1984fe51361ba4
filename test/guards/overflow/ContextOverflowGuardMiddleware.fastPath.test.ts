import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { assessRequest, sentUnmeasured, type ModelRequestLike } from "../../../src/guards/overflow/assess.js";
import { RequestMeter } from "../../../src/guards/overflow/estimate.js";
import { CONTEXT_RECORD_KEY } from "../../../src/guards/overflow/record.js";
import { calibration, MAX_CALIBRATION, providerWindowIn } from "../../../src/guards/overflow/window.js";

// The overflow guard's fast paths: a request with no window is not measured (its tokens are
// worked out only if the provider refuses it), and one far below its limit at the largest
// calibration skips the calibration. These properties pin that the full path answers the same.

/** One model turn of a history: its text, what its answer says (usage, a record of the guard), its tool result. */
const turn = fc.record({
  text: fc.string({ maxLength: 40 }),
  args: fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string({ maxLength: 20 }), fc.integer())),
  result: fc.oneof(fc.string({ maxLength: 300 }), fc.json({ maxDepth: 2 })),
  inputTokens: fc.option(fc.integer({ min: 1, max: 200_000 }), { nil: undefined }),
  record: fc.constantFrom("none", "no-window", "window"),
  providerWindow: fc.integer({ min: 1000, max: 200_000 }),
});
type Turn = typeof turn extends fc.Arbitrary<infer T> ? T : never;

function messagesOf(turns: readonly Turn[]): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage("go")];
  turns.forEach((t, i) => {
    const record =
      t.record === "none"
        ? {}
        : {
            [CONTEXT_RECORD_KEY]: {
              v: 1,
              guard: "ContextOverflowGuardMiddleware",
              reason: "overflow_recovered",
              window: t.providerWindow,
              limit: t.providerWindow - 100,
              fullTokens: 10,
              sentTokens: 10,
              removed: [],
              removedCount: 0,
              ...(t.record === "window" ? { providerWindow: t.providerWindow, providerReserve: 50 } : {}),
            },
          };
    messages.push(
      new AIMessage({
        content: t.text,
        tool_calls: [{ id: `call_${i}`, name: "lookup", args: t.args }],
        response_metadata: record,
        ...(t.inputTokens !== undefined
          ? { usage_metadata: { input_tokens: t.inputTokens, output_tokens: 1, total_tokens: t.inputTokens + 1 } }
          : {}),
      }),
      new ToolMessage({ content: t.result, tool_call_id: `call_${i}`, name: "lookup" }),
    );
  });
  return messages;
}

describe("ContextOverflowGuardMiddleware's fast paths", () => {
  it("RequestMeter.learned finds what summary finds, step after step, whichever of the two walked before", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(turn, fc.constantFrom("learned", "summary", "both")), { maxLength: 12 }),
        (steps) => {
          const meter = new RequestMeter();
          const turns: Turn[] = [];
          for (const [t, which] of steps) {
            turns.push(t);
            const messages = messagesOf(turns);
            const expected = new RequestMeter().summary(messages, providerWindowIn).learnedWindow;
            if (which !== "summary") expect(meter.learned(messages, providerWindowIn)).toBe(expected);
            if (which !== "learned") expect(meter.summary(messages, providerWindowIn).learnedWindow).toBe(expected);
          }
        },
      ),
    );
  });

  it("assessRequest decides as the full path does, and what it sends unmeasured is what the full path measured", () => {
    fc.assert(
      fc.property(
        fc.array(turn, { maxLength: 10 }),
        fc.option(fc.integer({ min: 500, max: 20_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1000, max: 200_000 }), { nil: undefined }),
        (turns, maxInputTokens, profileWindow) => {
          const messages = messagesOf(turns);
          const request: ModelRequestLike = {
            model: { profile: profileWindow === undefined ? {} : { maxInputTokens: profileWindow } },
            messages,
            systemMessage: new SystemMessage("You look things up."),
            tools: [{ name: "lookup", description: "look a key up", schema: { type: "object" } }],
          };
          const settings = { maxInputTokens, shrinkTo: 0.7 };
          const fast = assessRequest(request, undefined, new RequestMeter(), settings);
          // The full path: a meter whose walk always reports a window, so the request is measured.
          const measuring = Object.assign(new RequestMeter(), { learned: () => 0 });
          const full = assessRequest(request, undefined, measuring, settings);
          expect(fast.kind).toBe(full.kind);
          if (fast.kind === "fits" && full.kind === "fits")
            expect(fast.prepared ?? sentUnmeasured(request, new RequestMeter())).toEqual(full.prepared);
          else expect(fast).toEqual(full);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("calibration never exceeds MAX_CALIBRATION, so a request within the limit at it fits at any calibration", () => {
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 8 }), fc.nat({ max: 5000 }), (turns, fixed) => {
        const messages = messagesOf(turns);
        const meter = new RequestMeter();
        const factor = calibration(messages, (end) => meter.summary(messages, providerWindowIn, end).tokens, fixed);
        expect(factor).toBeLessThanOrEqual(MAX_CALIBRATION);
      }),
    );
  });
});
