import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { MemoryOffloadStore, ToolResultBudgetMiddleware } from "../../../src/index.js";
import { RETRIEVAL_TOOL_NAME } from "../../../src/guards/budget/texts.js";
import { ScriptedChatModel } from "../../../src/testing/index.js";

const logs = tool(async ({ size }) => "x".repeat(size), {
  name: "logs",
  description: "Read logs",
  schema: z.object({ size: z.number() }),
});

describe("read_stored_result is offered once something is stored", () => {
  it("is left out of requests until a result is offloaded, then offered on every later request", async () => {
    const model = new ScriptedChatModel({
      turns: [
        { toolCalls: [{ name: "logs", args: { size: 10 } }] },
        { toolCalls: [{ name: "logs", args: { size: 50_000 } }] },
        { text: "done" },
      ],
    });
    const budget = new ToolResultBudgetMiddleware({ store: new MemoryOffloadStore() });
    const agent = createAgent({ model, tools: [logs], middleware: [budget] });
    await agent.invoke({ messages: [new HumanMessage("go")] });
    const offered = model.toolBindings.map((names) => names.includes(RETRIEVAL_TOOL_NAME));
    expect(offered).toEqual([false, false, true]);
  });

  it("still answers a call to it when it was not offered", async () => {
    const model = new ScriptedChatModel({
      turns: [{ toolCalls: [{ name: RETRIEVAL_TOOL_NAME, args: { key: "nope" } }] }, { text: "done" }],
    });
    const agent = createAgent({
      model,
      tools: [logs],
      middleware: [new ToolResultBudgetMiddleware({ store: new MemoryOffloadStore() })],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(String(messages[2]?.content)).toMatch(/Nothing is stored under the key/);
  });
});
