import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, summarizationMiddleware, toolCallLimitMiddleware, type AgentMiddleware } from "langchain";
import { z } from "zod";
import type { Signal } from "../../src/core/signals.js";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { accountCallArb } from "../helpers/accountCalls.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";

/**
 * Judgement survives summaries (docs/architecture.md, "Two kinds of guard"), as a property: the
 * same scripted agent, over two user turns of one thread, with LangChain's summarizationMiddleware
 * (before or after the stack, summarising every few messages) and without it, gets the same
 * signals from every guard, on the same calls, and ends each run the same way.
 */

const runArb = fc.array(
  fc.array(accountCallArb, { minLength: 1, maxLength: 3 }).map((toolCalls): ScriptedTurn => ({ toolCalls })),
  { minLength: 1, maxLength: 8 },
);
const settingsArb = fc.record({
  summaryFirst: fc.boolean(),
  limit: fc.constantFrom("none", "before", "after"),
  runLimit: fc.integer({ min: 1, max: 3 }),
  runaway: fc.constantFrom(
    undefined,
    { warnAt: 1, blockAt: 1.5, stopAt: 3, minInputTokens: 10 },
    { maxRunTokens: 150 },
  ),
});

type Settings = typeof settingsArb extends fc.Arbitrary<infer S> ? S : never;

function tools() {
  let reads = 0;
  return [
    // The first read's output is invalid: the validator's safe mode is part of what is judged.
    tool(async ({ id }: { id: number }) => (reads++ === 0 ? "<html>502</html>" : JSON.stringify({ id, seats: 3 })), {
      name: "get_account",
      description: "read an account",
      schema: z.object({ id: z.number() }),
    }),
    tool(async () => "updated", {
      name: "update_account",
      description: "change an account",
      schema: z.object({ id: z.number(), seats: z.number() }),
    }),
    tool(async ({ q }: { q: number }) => `results for ${q}`, {
      name: "search",
      description: "search",
      schema: z.object({ q: z.number() }),
    }),
  ];
}

/** Signals as `guard action code @call`, and how each run ended. */
async function judged(turns: ScriptedTurn[], settings: Settings, summaries: boolean) {
  const signals: Signal[] = [];
  const stack = recommendedGuards({
    writeTools: ["update_account"],
    outputSpecs: { get_account: { schema: z.object({ id: z.number(), seats: z.number() }), onInvalid: "degrade" } },
    runaway: settings.runaway,
    onSignal: (s) => signals.push(s),
  }).agent;
  const middleware: AgentMiddleware[] = [...stack];
  if (summaries) {
    const summariser = new ScriptedChatModel({
      turns: Array.from({ length: 100 }, () => ({ text: "Earlier: the agent called tools." })),
    });
    const summary = summarizationMiddleware({ model: summariser, trigger: { messages: 4 }, keep: { messages: 2 } });
    if (settings.summaryFirst) middleware.unshift(summary);
    else middleware.push(summary);
  }
  const limit = toolCallLimitMiddleware({ toolName: "search", runLimit: settings.runLimit, exitBehavior: "continue" });
  if (settings.limit === "before") middleware.unshift(limit);
  if (settings.limit === "after") middleware.push(limit);
  const agent = createAgent({
    model: new ScriptedChatModel({ turns }),
    tools: tools(),
    middleware,
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "t" }, recursionLimit: 300 };
  const ends: string[] = [];
  for (const text of ["check account 7", "and once more"]) {
    const { messages } = (await agent.invoke({ messages: [new HumanMessage(text)] }, config)) as {
      messages: BaseMessage[];
    };
    assertToolCallPairing(messages);
    ends.push(String(messages.at(-1)!.content).slice(0, 60));
  }
  return {
    signals: signals
      .filter((s) => s.code !== "guard_failed")
      .map((s) => `${s.guard} ${s.action} ${s.code} @${s.toolCallId}`),
    ends,
  };
}

describe("summaries change no judgement", () => {
  it("every guard signals the same on the same calls with and without summaries", async () => {
    await fc.assert(
      fc.asyncProperty(runArb, runArb, settingsArb, async (first, second, settings) => {
        // Call ids of the script's own, the same in both agents.
        const turns = [...first, { text: "done" }, ...second, { text: "done" }].map((turn, t) =>
          "toolCalls" in turn ? { toolCalls: turn.toolCalls!.map((call, k) => ({ ...call, id: `c${t}.${k}` })) } : turn,
        );
        const without = await judged(turns, settings, false);
        const withSummaries = await judged(turns, settings, true);
        // Parallel calls signal in the order they happen to run.
        expect([...withSummaries.signals].sort()).toEqual([...without.signals].sort());
        expect(withSummaries.ends).toEqual(without.ends);
      }),
      { numRuns: 60 },
    );
  }, 240_000);
});
