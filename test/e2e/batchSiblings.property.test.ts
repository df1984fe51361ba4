import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, toolCallLimitMiddleware, type AgentMiddleware } from "langchain";
import { z } from "zod";
import type { Signal } from "../../src/core/signals.js";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { replayedBesideLive } from "../helpers/replayAgrees.js";

/**
 * Parallel batches of reads, writes and repeats, some calls blocked by LangChain's call limit
 * (listed before or after the stack) and some refused by the guards: through a real createAgent
 * graph, each guard judges the calls that reached it, and replay of the thread gives the
 * decisions the loop guards signalled live (docs/architecture.md, "Judge as one").
 */

const read = (id: number) => ({ name: "get_account", args: { id } });
const write = (seats: number) => ({ name: "update_account", args: { id: 7, seats } });
const search = (q: number) => ({ name: "search", args: { q } });

const callArb = fc.oneof(
  fc.integer({ min: 7, max: 8 }).map(read),
  fc.integer({ min: 1, max: 2 }).map(write),
  fc.integer({ min: 0, max: 1 }).map(search),
);
const turnsArb = fc.array(
  fc.array(callArb, { minLength: 1, maxLength: 3 }).map((toolCalls): ScriptedTurn => ({ toolCalls })),
  { minLength: 2, maxLength: 6 },
);
// The runaway guard's tiers low enough to block repeats in these short runs, or its defaults.
const runawayArb = fc.constantFrom(undefined, { warnAt: 1, blockAt: 1.5, stopAt: 1000, minInputTokens: 10 });
const limitArb = fc.record({
  toolName: fc.constantFrom("get_account", "update_account"),
  runLimit: fc.integer({ min: 0, max: 2 }),
  before: fc.boolean(),
});

function tools() {
  const answer = (name: string, text: (args: Record<string, unknown>) => string, schema: z.ZodObject) =>
    tool(async (args: Record<string, unknown>) => text(args), { name, description: name, schema });
  return [
    answer("get_account", ({ id }) => `account ${String(id)}: 3 seats`, z.object({ id: z.number() })),
    answer("update_account", () => "updated", z.object({ id: z.number(), seats: z.number() })),
    answer("search", ({ q }) => `results for ${String(q)}`, z.object({ q: z.number() })),
  ];
}

describe("parallel siblings answered on their way in, live and replayed", () => {
  it("replay gives the loop guards' live decisions, whatever the call limit blocked", async () => {
    await fc.assert(
      fc.asyncProperty(turnsArb, limitArb, runawayArb, async (turns, { toolName, runLimit, before }, runaway) => {
        const signals: Signal[] = [];
        const stack = recommendedGuards({
          writeTools: ["update_account"],
          runaway,
          onSignal: (s) => signals.push(s),
        }).agent;
        const limit = toolCallLimitMiddleware({ toolName, runLimit, exitBehavior: "continue" });
        const middleware: AgentMiddleware[] = before ? [limit, ...stack] : [...stack, limit];
        const agent = createAgent({
          model: new ScriptedChatModel({ turns: [...turns, { text: "done" }] }),
          tools: tools(),
          middleware,
          checkpointer: new MemorySaver(),
        });
        const config = { configurable: { thread_id: "t" } };
        await agent.invoke({ messages: [new HumanMessage("add a seat")] }, config);
        const messages = (await agent.graph.getState(config)).values.messages as BaseMessage[];
        assertToolCallPairing(messages);

        const { guards, decided, live } = await replayedBesideLive(messages, stack, signals);
        expect(guards).toHaveLength(3);
        // Parallel calls signal in the order they happen to run.
        expect(decided.sort()).toEqual(live.sort());
      }),
      { numRuns: 100 },
    );
  }, 120_000);
});
