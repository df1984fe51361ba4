import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createAgent, type AgentMiddleware } from "langchain";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { LoopGuardMiddleware } from "../../../src/guards/loop/LoopGuardMiddleware.js";
import { RunawayGuardMiddleware } from "../../../src/guards/runaway/RunawayGuardMiddleware.js";
import { markOf } from "../../../src/core/marks.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { ODD_TOOL_RESULTS as RESULTS } from "../../helpers/toolResults.js";

/**
 * Contracts 1 and 2 (docs/architecture.md) for RunawayGuard under random agent behaviour: whatever the model
 * calls and reports as usage (nothing, nonsense, huge numbers) and whatever the tools return or throw,
 * every run ends normally, every tool call is answered exactly once, and a stop is the last word.
 */

const usageArb = fc.oneof(
  fc.constant(undefined),
  fc.record({ input_tokens: fc.nat(20_000), output_tokens: fc.nat(2_000) }),
  fc.constantFrom<Record<string, unknown>>(
    { input_tokens: Number.NaN, output_tokens: 1 },
    { input_tokens: -1, output_tokens: 5 },
    { input_tokens: "12" },
    {},
  ),
);
const callArb = fc.record({
  name: fc.constantFrom("alpha", "beta", "task", "ghost"),
  args: fc.oneof(fc.constant({}), fc.record({ k: fc.nat(3) })),
});
const turnArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.tuple(fc.array(callArb, { minLength: 1, maxLength: 4 }), usageArb).map(
      ([calls, usage]): ScriptedTurn =>
        new AIMessage({
          content: "",
          tool_calls: calls.map((c, i) => ({ ...c, id: `${Math.random()}-${i}`, type: "tool_call" as const })),
          usage_metadata: usage as never,
        }),
    ),
  },
  { weight: 1, arbitrary: fc.constant<ScriptedTurn>({ text: "done" }) },
);
const optionsArb = fc.record({
  warnAt: fc.double({ min: 0.5, max: 3, noNaN: true }),
  extraBlock: fc.double({ min: 0, max: 3, noNaN: true }),
  extraStop: fc.double({ min: 0, max: 6, noNaN: true }),
  minInputTokens: fc.integer({ min: 1, max: 2000 }),
  maxRunTokens: fc.option(fc.integer({ min: 1, max: 50_000 }), { nil: undefined }),
  maxThreadTokens: fc.option(fc.integer({ min: 1, max: 80_000 }), { nil: undefined }),
  observeOnly: fc.boolean(),
  withLoopGuard: fc.boolean(),
});

function tools(picks: number[]) {
  let n = 0;
  return ["alpha", "beta", "task"].map((name) =>
    tool(async () => RESULTS[picks[n++ % picks.length]!]!() as string, {
      name,
      description: name,
      schema: z.object({}).passthrough(),
    }),
  );
}

function checkRun(thread: BaseMessage[], observeOnly: boolean) {
  assertToolCallPairing(thread);
  let start = thread.length - 1;
  while (start > 0 && !HumanMessage.isInstance(thread[start])) start--;
  const messages = thread.slice(start);
  if (observeOnly) expect(messages.filter((m) => markOf(m)?.guard === "RunawayGuardMiddleware")).toEqual([]);
  const stopAt = messages.findIndex(
    (m) => AIMessage.isInstance(m) && markOf(m)?.action === "stop" && markOf(m)?.guard === "RunawayGuardMiddleware",
  );
  if (stopAt >= 0) expect(stopAt).toBe(messages.length - 1);
}

describe("RunawayGuard keeps contracts 1 and 2 for random histories", () => {
  it("across two runs of one thread, each with a new agent instance", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnArb, { minLength: 1, maxLength: 10 }),
        fc.array(turnArb, { minLength: 1, maxLength: 10 }),
        fc.array(fc.nat(RESULTS.length - 1), { minLength: 1, maxLength: 6 }),
        optionsArb,
        async (firstTurns, secondTurns, picks, o) => {
          const checkpointer = new MemorySaver();
          const config = { configurable: { thread_id: "t" }, recursionLimit: 500 };
          const middleware = (): AgentMiddleware[] => {
            const guard = new RunawayGuardMiddleware({
              warnAt: o.warnAt,
              blockAt: o.warnAt + o.extraBlock,
              stopAt: o.warnAt + o.extraBlock + o.extraStop,
              minInputTokens: o.minInputTokens,
              maxRunTokens: o.maxRunTokens,
              maxThreadTokens: o.maxThreadTokens,
              observeOnly: o.observeOnly,
            });
            return o.withLoopGuard ? [guard, new LoopGuardMiddleware({ warnAt: 1, stopAt: 2 })] : [guard];
          };
          for (const [turns, text] of [
            [firstTurns, "first"],
            [secondTurns, "second"],
          ] as const) {
            const agent = createAgent({
              model: new ScriptedChatModel({ turns }),
              tools: tools(picks),
              middleware: middleware(),
              checkpointer,
            });
            const result = await agent.invoke({ messages: [new HumanMessage(text)] }, config);
            checkRun(result.messages, o.observeOnly);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
