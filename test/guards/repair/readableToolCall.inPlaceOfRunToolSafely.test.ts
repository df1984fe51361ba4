import { ToolMessage } from "@langchain/core/messages";
import { ToolInputParsingException } from "@langchain/core/tools";
import { GraphInterrupt } from "@langchain/langgraph";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasRanStamp, ranStampOf } from "../../../src/core/marks.js";
import { runToolSafely } from "../../../src/core/toolErrors.js";
import { readableToolCall } from "../../../src/guards/repair/readableToolCall.js";

// The repair guard's batch guard runs the calls it lets through in readableToolCall alone, where
// it ran them through runToolSafely around it (hooks/batchGuard.ts `run`). The two must give the
// same answer, stamp and exception, whatever the tool does, with or without a tool to probe.

type Outcome =
  | { kind: "result"; content: string; status: "success" | "error" }
  | { kind: "throws"; error: "plain" | "parsing" | "interrupt"; atOnce: boolean };

const outcome: fc.Arbitrary<Outcome> = fc.oneof(
  fc.record({
    kind: fc.constant("result" as const),
    content: fc.oneof(fc.string(), fc.constantFrom("", "[object Object]", '{"type":"Buffer","data":[104,105]}')),
    status: fc.constantFrom<"success" | "error">("success", "error"),
  }),
  fc.record({
    kind: fc.constant("throws" as const),
    error: fc.constantFrom<"plain" | "parsing" | "interrupt">("plain", "parsing", "interrupt"),
    atOnce: fc.boolean(),
  }),
);

function errorOf(kind: "plain" | "parsing" | "interrupt"): unknown {
  if (kind === "parsing") return new ToolInputParsingException("bad input", "{}");
  if (kind === "interrupt") return new GraphInterrupt();
  return new Error("tool failed");
}

interface Request {
  toolCall: { id: string; name: string; args: unknown };
  tool?: { invoke(input: unknown): Promise<unknown>; schema?: unknown };
  state: { messages: [] };
}

/** A handler that acts out `what`, through the request's tool when it has one (so the probe sees it run). */
function handlerFor(what: Outcome) {
  return (request: Request): Promise<ToolMessage> | ToolMessage => {
    if (what.kind === "throws" && what.atOnce) throw errorOf(what.error);
    const ran = request.tool ? request.tool.invoke({}) : Promise.resolve(undefined);
    return ran.then(() => {
      if (what.kind === "throws") throw errorOf(what.error);
      return new ToolMessage({ content: what.content, status: what.status, tool_call_id: "c1", name: "lookup" });
    });
  };
}

async function settle(run: () => Promise<unknown>) {
  try {
    const answer = await run();
    return {
      content: (answer as ToolMessage).content,
      status: (answer as ToolMessage).status,
      stamped: hasRanStamp(answer),
      ran: ranStampOf(answer),
    };
  } catch (error) {
    return { threw: (error as Error).constructor.name };
  }
}

describe("readableToolCall in place of runToolSafely around it", () => {
  it("gives the same answer, stamp and exception", async () => {
    await fc.assert(
      fc.asyncProperty(outcome, fc.boolean(), fc.boolean(), async (what, withTool, observeOnly) => {
        const wrap = readableToolCall(
          { guard: "ToolCallRepairMiddleware", observeOnly, onSignal: undefined },
          undefined,
        );
        const request = (): Request => ({
          toolCall: { id: "c1", name: "lookup", args: {} },
          ...(withTool ? { tool: { invoke: () => Promise.resolve("done") } } : {}),
          state: { messages: [] },
        });
        const alone = await settle(() => wrap(request(), handlerFor(what)));
        const around = await settle(() => runToolSafely(request(), (checked) => wrap(checked, handlerFor(what))));
        expect(alone).toEqual(around);
      }),
      { numRuns: 300 },
    );
  });
});
