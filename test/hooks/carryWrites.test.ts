import { describe, expect, it } from "vitest";
import { createAgent, summarizationMiddleware } from "langchain";
import { HumanMessage, type BaseMessage, type ToolMessage, type AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { CARRY_KEY } from "../../src/hooks/carry.js";
import { checkpointHistory } from "../../src/hooks/summaryRemovals.js";
import { isSummary } from "../../src/core/messages.js";
import { recommendedGuards } from "../../src/index.js";
import { ScriptedChatModel } from "../../src/testing/index.js";

/** Every write to the carry channel of a thread, as the saver stored them. */
async function carryWrites(saver: MemorySaver): Promise<{ id: string }[][]> {
  const out: { id: string }[][] = [];
  for (const writes of Object.values(saver.writes)) {
    for (const [, channel, value] of Object.values(writes)) {
      if (channel === CARRY_KEY) out.push((await saver.serde.loadsTyped("json", value)) as { id: string }[]);
    }
  }
  return out;
}

function agentWith(withSummaries: boolean) {
  const calls = (turn: number) =>
    Array.from({ length: 4 }, (_, i) => ({ name: "lookup", args: { key: `k${turn}-${i}` } }));
  // Results over the budget's limit: the budget rewrites the answer outside the validator.
  const lookup = tool(async ({ key }: { key: string }) => `${key} `.repeat(6_000), {
    name: "lookup",
    description: "look up",
    schema: z.object({ key: z.string() }),
  });
  const model = new ScriptedChatModel({
    turns: [...[0, 1, 2, 3, 4].map((turn) => ({ toolCalls: calls(turn) })), { text: "done" }],
  });
  const summariser = new ScriptedChatModel({
    turns: Array.from({ length: 20 }, () => ({ text: "Earlier: lookups." })),
  });
  const summaries = summarizationMiddleware({ model: summariser, trigger: { messages: 8 }, keep: { messages: 5 } });
  const saver = new MemorySaver();
  const guards = recommendedGuards().agent;
  const agent = createAgent({
    model,
    tools: [lookup],
    middleware: withSummaries ? [summaries, ...guards] : guards,
    checkpointer: saver,
  });
  return { agent, saver };
}

describe("what the stack carries", () => {
  it("nothing while no summary removed anything: a thread stores what a bare agent stores", async () => {
    const { agent, saver } = agentWith(false);
    const config = { configurable: { thread_id: "t" } };
    await agent.invoke({ messages: [new HumanMessage("go")] }, config);
    expect(await carryWrites(saver)).toEqual([]);
    expect((await agent.graph.getState(config)).values[CARRY_KEY] ?? []).toEqual([]);
  });

  it("after summaries, each removed message once, however many guards and parallel calls a batch has", async () => {
    const { agent, saver } = agentWith(true);
    const config = { configurable: { thread_id: "t" } };
    const { messages } = (await agent.invoke({ messages: [new HumanMessage("go")] }, config)) as {
      messages: BaseMessage[];
    };
    expect(messages.some(isSummary)).toBe(true);

    const writes = await carryWrites(saver);
    expect(writes.length).toBeGreaterThanOrEqual(2); // one per summary, from one task of its batch
    const written = writes.flat().map((entry) => entry.id);
    expect(written.length).toBe(new Set(written).size);

    // The carry holds what an earlier summary removed, in history order, then that summary.
    const carried = (await agent.graph.getState(config)).values[CARRY_KEY] as BaseMessage[];
    expect(isSummary(carried.at(-1))).toBe(true);
    expect(carried[0]).toBeInstanceOf(HumanMessage);
    // The last summary came right before the final answer: no tool call wrote it. Its removals
    // are in the checkpoint it was made from, where replay (and a guard on another worker) finds them.
    const tuple = (await saver.getTuple(config))!;
    const history = await checkpointHistory(saver, tuple.checkpoint.channel_values as never, tuple.parentConfig);
    expect(history.length).toBe(1 + 5 * 5 + 1); // the question, 5 turns of 4 answers, the final answer
    expect(new Set(history.map((m) => m.id)).size).toBe(history.length);
    const asked = history.flatMap((m) => (m as AIMessage).tool_calls?.map((c) => c.id) ?? []);
    expect(asked.length).toBe(20);
    expect(history.filter((m) => m.getType() === "tool").map((m) => (m as ToolMessage).tool_call_id)).toEqual(asked);
  });
});
