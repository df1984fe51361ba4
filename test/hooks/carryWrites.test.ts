import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { CARRY_KEY } from "../../src/hooks/carry.js";
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

describe("what the stack carries", () => {
  it("writes each carried entry once, however many guards and parallel calls a batch has", async () => {
    const calls = (turn: number) => Array.from({ length: 4 }, (_, i) => ({ name: "lookup", args: { key: `k${turn}-${i}` } }));
    // Results over the budget's limit: the budget rewrites the answer outside the validator, which carried it first.
    const lookup = tool(async ({ key }: { key: string }) => `${key} `.repeat(6_000), { name: "lookup", description: "look up", schema: z.object({ key: z.string() }) });
    const model = new ScriptedChatModel({ turns: [...[0, 1, 2].map((turn) => ({ toolCalls: calls(turn) })), { text: "done" }] });
    const saver = new MemorySaver();
    const agent = createAgent({ model, tools: [lookup], middleware: recommendedGuards().agent, checkpointer: saver });
    const config = { configurable: { thread_id: "t" } };
    const { messages } = (await agent.invoke({ messages: [new HumanMessage("go")] }, config)) as { messages: BaseMessage[] };

    const written = (await carryWrites(saver)).flat().map((entry) => entry.id);
    expect(written.length).toBe(new Set(written).size);
    expect(written.length).toBe(messages.length - 1); // everything but the final answer, which no tool call follows

    const carried = (await agent.graph.getState(config)).values[CARRY_KEY] as BaseMessage[];
    const results = messages.filter(ToolMessage.isInstance);
    const carriedResults = carried.filter(ToolMessage.isInstance);
    expect(carriedResults.map((m) => m.content)).toEqual(results.map((m) => m.content)); // the answers as the model read them
    expect(results.every((m) => String(m.content).length < 6_000 * 5)).toBe(true);
  });
});
