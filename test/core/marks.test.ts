import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ToolMessage } from "@langchain/core/messages";
import {
  answerFacts,
  MARK_KEY,
  markOf,
  originalOf,
  RAN_KEY,
  toolRan,
  WOULD_REFUSE_KEY,
  wouldBeRefusalsOf,
} from "../../src/core/marks.js";

// answerFacts answers a result stamped as run with no mark and no refusal list from one look at
// its metadata; everything else goes through the readers it stands for. Both must agree always.

const anything = fc.oneof(fc.constant(undefined), fc.constant(null), fc.boolean(), fc.string(), fc.integer());
const ranStamp = fc.oneof(fc.constant(true), fc.constant(false), anything);
const original = fc.record(
  { fingerprint: fc.oneof(fc.string(), anything), size: fc.oneof(fc.nat(), anything), offloadKey: anything },
  { requiredKeys: [] },
);
const mark = fc.oneof(
  anything,
  fc.record(
    {
      guard: fc.oneof(fc.constantFrom("LoopGuardMiddleware", "BinaryReadGuardMiddleware"), anything),
      action: fc.oneof(fc.constantFrom("warn", "directive", "stop"), anything),
      outcome: fc.oneof(fc.constantFrom("invalid_output", "replaced_result", "blocked"), anything),
      original: fc.oneof(original, anything),
    },
    { requiredKeys: [] },
  ),
);
const refusals = fc.oneof(
  anything,
  fc.array(
    fc.record({
      guard: fc.oneof(fc.constantFrom("LoopGuardMiddleware", "RunawayGuardMiddleware"), anything),
      action: fc.oneof(fc.constantFrom("directive", "stop", "warn"), anything),
    }),
    { maxLength: 3 },
  ),
);
const metadata = fc.record(
  { [RAN_KEY]: ranStamp, [MARK_KEY]: mark, [WOULD_REFUSE_KEY]: refusals, other: anything },
  { requiredKeys: [] },
);
const answer = fc
  .record({
    metadata: fc.oneof(metadata, anything),
    status: fc.constantFrom("success", "error", undefined),
    content: fc.oneof(
      fc.string(),
      fc.constant("Tool call t with id c1 was cancelled - another message came in before it could be completed."),
    ),
    instance: fc.boolean(),
  })
  .map(({ metadata, status, content, instance }) => {
    const fieldsOf = { content, tool_call_id: "c1", name: "t", status, response_metadata: metadata };
    return instance && metadata !== null && typeof metadata === "object"
      ? new ToolMessage(fieldsOf as ConstructorParameters<typeof ToolMessage>[0] & object)
      : { type: "tool", ...fieldsOf };
  });

describe("answerFacts", () => {
  it("equals toolRan, markOf, wouldBeRefusalsOf and originalOf read one by one", () => {
    fc.assert(
      fc.property(answer, fc.boolean(), (message, stampedTurn) => {
        const ran = toolRan(message, stampedTurn);
        expect(answerFacts(message, stampedTurn)).toEqual({
          ran,
          answeredBy: ran ? undefined : markOf(message),
          wouldRefuse: ran ? wouldBeRefusalsOf(message) : [],
          original: originalOf(message),
        });
      }),
      { numRuns: 2000 },
    );
  });

  it("reads a plain result stamped as run as one that ran, with nothing marked", () => {
    const message = new ToolMessage({ content: "ok", tool_call_id: "c1", response_metadata: { [RAN_KEY]: true } });
    expect(answerFacts(message, true)).toEqual({
      ran: true,
      answeredBy: undefined,
      wouldRefuse: [],
      original: undefined,
    });
  });
});
