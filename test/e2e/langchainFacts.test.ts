import { describe, expect, it } from "vitest";
import { createAgent, createMiddleware } from "langchain";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { ScriptedChatModel } from "../../src/testing/index.js";

/** LangChain behaviour the loop guards rely on (LANGCHAIN_FACTS.md), pinned so an upgrade that changes it fails here. */

const search = tool(async () => "found", { name: "search", description: "search", schema: z.object({}) });
const searchTurn = { toolCalls: [{ name: "search", args: {} }] };

describe("LangChain facts the guards rely on", () => {
  it("a batch fully answered in afterModel ends the run unless the hook jumps back to the model", async () => {
    const answerAll = (jump: boolean) =>
      createMiddleware({
        name: "AnswerAll",
        afterModel: {
          canJumpTo: ["model"],
          hook: (state) => {
            const last = state.messages.at(-1) as AIMessage;
            if (!last.tool_calls?.length) return undefined;
            const answers = last.tool_calls.map((c) => new ToolMessage({ content: "refused", tool_call_id: c.id!, name: c.name }));
            return jump ? { messages: answers, jumpTo: "model" as const } : { messages: answers };
          },
        },
      });
    const run = async (jump: boolean) => {
      const model = new ScriptedChatModel({ turns: [searchTurn, { text: "changed course" }] });
      const result = await createAgent({ model, tools: [search], middleware: [answerAll(jump)] }).invoke({ messages: [new HumanMessage("go")] });
      return { calls: model.callCount, last: String(result.messages.at(-1)?.content) };
    };
    expect(await run(false)).toEqual({ calls: 1, last: "refused" });
    expect(await run(true)).toEqual({ calls: 2, last: "changed course" });
  });

  it("calls node hooks unbound, so hooks must be arrow-function properties", async () => {
    let self: unknown = "not called";
    const probe = createMiddleware({
      name: "Probe",
      afterModel: function (this: unknown) {
        self = this;
        return undefined;
      },
    });
    await createAgent({ model: new ScriptedChatModel({ turns: [{ text: "hi" }] }), tools: [search], middleware: [probe] }).invoke({
      messages: [new HumanMessage("go")],
    });
    expect(self).toBeUndefined();
  });

  it("replaces a message whose id already exists in the thread", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "ids" } };
    const reply = (text: string) => new AIMessage({ id: "fixed-id", content: text });
    const agent = (text: string) => createAgent({ model: new ScriptedChatModel({ turns: [reply(text)] }), tools: [search], checkpointer });
    await agent("first").invoke({ messages: [new HumanMessage("one")] }, config);
    const { messages } = await agent("second").invoke({ messages: [new HumanMessage("two")] }, config);
    expect(messages.filter((m) => m.id === "fixed-id").map((m) => m.content)).toEqual(["second"]);
  });
});
