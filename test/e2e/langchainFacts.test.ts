import { describe, expect, it } from "vitest";
import {
  createAgent,
  createMiddleware,
  MiddlewareError,
  summarizationMiddleware,
  type AgentMiddleware,
} from "langchain";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { findToolCallPairingViolation } from "../../src/testing/assertToolCallPairing.js";
import { smallestLimit } from "../helpers/graphSteps.js";

/** LangChain behaviour the guards rely on (docs/langchain-facts.md), pinned so an upgrade that changes it fails here. */

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
            const answers = last.tool_calls.map(
              (c) => new ToolMessage({ content: "refused", tool_call_id: c.id!, name: c.name }),
            );
            return jump ? { messages: answers, jumpTo: "model" as const } : { messages: answers };
          },
        },
      });
    const run = async (jump: boolean) => {
      const model = new ScriptedChatModel({ turns: [searchTurn, { text: "changed course" }] });
      const result = await createAgent({ model, tools: [search], middleware: [answerAll(jump)] }).invoke({
        messages: [new HumanMessage("go")],
      });
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
        // oxlint-disable-next-line no-this-alias -- the test reads what LangChain binds `this` to
        self = this;
        return undefined;
      },
    });
    await createAgent({
      model: new ScriptedChatModel({ turns: [{ text: "hi" }] }),
      tools: [search],
      middleware: [probe],
    }).invoke({
      messages: [new HumanMessage("go")],
    });
    expect(self).toBeUndefined();
  });

  it("replaces a message whose id already exists in the thread", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "ids" } };
    const reply = (text: string) => new AIMessage({ id: "fixed-id", content: text });
    const agent = (text: string) =>
      createAgent({ model: new ScriptedChatModel({ turns: [reply(text)] }), tools: [search], checkpointer });
    await agent("first").invoke({ messages: [new HumanMessage("one")] }, config);
    const { messages } = await agent("second").invoke({ messages: [new HumanMessage("two")] }, config);
    expect(messages.filter((m) => m.id === "fixed-id").map((m) => m.content)).toEqual(["second"]);
  });
});

/** A search tool that counts its runs, so a test can tell a call that ran from one answered in its place. */
function countedSearch() {
  const counter = { runs: 0 };
  const search = tool(async () => (counter.runs++, "found"), {
    name: "search",
    description: "search",
    schema: z.object({}),
  });
  return { search, counter };
}

const passThroughWraps = (name = "PassThroughWraps") =>
  createMiddleware({
    name,
    wrapModelCall: (request, handler) => handler(request),
    wrapToolCall: (request, handler) => handler(request),
  });
const passThroughAfterModel = () => createMiddleware({ name: "PassThroughAfterModel", afterModel: () => undefined });

async function runScript(turns: ScriptedTurn[], middleware: AgentMiddleware[]) {
  const { search, counter } = countedSearch();
  const model = new ScriptedChatModel({ turns, onExhausted: "throw" });
  const { messages } = (await createAgent({ model, tools: [search], middleware }).invoke({
    messages: [new HumanMessage("go")],
  })) as { messages: BaseMessage[] };
  return { messages, runs: counter.runs, modelCalls: model.callCount };
}

describe("LangChain facts the wrap-hook design relies on (issue 11)", () => {
  it("a middleware with only wrapModelCall and wrapToolCall adds no graph step; a node hook adds one per model call", async () => {
    const stepsWith = (middleware: () => AgentMiddleware[]) =>
      smallestLimit(async (recursionLimit) => {
        const { search } = countedSearch();
        const model = new ScriptedChatModel({
          turns: [searchTurn, searchTurn, { text: "done" }],
          onExhausted: "throw",
        });
        const agent = createAgent({ model, tools: [search], middleware: middleware() });
        const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit });
        return messages.at(-1)?.content === "done";
      });
    const bare = await stepsWith(() => []);
    expect(bare).toBe(6); // 2 + 2 per tool turn
    expect(await stepsWith(() => [passThroughWraps("Wraps1"), passThroughWraps("Wraps2")])).toBe(bare);
    expect(await stepsWith(() => [passThroughAfterModel()])).toBe(bare + 3);
  });

  it("wrapModelCall may return an AIMessage without calling the handler: the model is not called, and no tool calls ends the run", async () => {
    const answer = new AIMessage({ id: "instead", content: "answered in place of the model" });
    const instead = createMiddleware({ name: "Instead", wrapModelCall: () => answer });
    const { messages, runs, modelCalls } = await runScript([searchTurn, { text: "model spoke" }], [instead]);
    expect(modelCalls).toBe(0);
    expect(runs).toBe(0);
    expect(messages.map((m) => m.content)).toEqual(["go", "answered in place of the model"]);
  });

  it("wrapToolCall returning a ToolMessage without calling the handler answers the call, and the tool does not run", async () => {
    const refuse = createMiddleware({
      name: "Refuse",
      wrapToolCall: (request) =>
        new ToolMessage({
          content: "refused",
          tool_call_id: request.toolCall.id!,
          name: request.toolCall.name,
          status: "error",
        }),
    });
    const { messages, runs, modelCalls } = await runScript([searchTurn, { text: "changed course" }], [refuse]);
    expect(runs).toBe(0);
    expect(modelCalls).toBe(2);
    expect(findToolCallPairingViolation(messages)).toBeUndefined();
    expect(messages.filter(ToolMessage.isInstance).map((m) => m.content)).toEqual(["refused"]);
    expect(messages.at(-1)?.content).toBe("changed course");
  });

  it("without afterModel hooks the tools node runs every call of the last AIMessage, even one whose id an earlier ToolMessage has", async () => {
    // Some OpenAI-compatible servers number calls per turn: call_0 every turn.
    const reusing: ScriptedTurn[] = [
      { toolCalls: [{ name: "search", id: "call_0" }] },
      {
        toolCalls: [
          { name: "search", id: "call_0" },
          { name: "search", id: "call_1" },
        ],
      },
      { text: "done" },
    ];
    for (const middleware of [[], [passThroughWraps()]]) {
      const { messages, runs } = await runScript(reusing, middleware);
      expect(runs).toBe(3);
      expect(findToolCallPairingViolation(messages)).toBeUndefined();
    }
    // The contrast that made the guards leave afterModel: after it, the router takes call_0 for answered.
    const { messages, runs } = await runScript(reusing, [passThroughAfterModel()]);
    expect(runs).toBe(2);
    expect(findToolCallPairingViolation(messages)?.kind).toBe("unanswered");
  });

  it("an error thrown from wrapToolCall rejects invoke as a MiddlewareError with the original on .cause", async () => {
    const original = new Error("guard broke");
    const failing = createMiddleware({
      name: "Failing",
      wrapToolCall: () => {
        throw original;
      },
    });
    const rejection = await runScript([searchTurn, { text: "never" }], [failing]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(MiddlewareError.isInstance(rejection)).toBe(true);
    expect((rejection as Error).cause).toBe(original);
  });

  it('summarizationMiddleware\'s summary is a HumanMessage marked additional_kwargs.lc_source = "summarization"', async () => {
    const summarizer = new ScriptedChatModel({
      turns: Array.from({ length: 10 }, () => ({ text: "the searches found things" })),
    });
    const summarize = summarizationMiddleware({ model: summarizer, trigger: { messages: 4 }, keep: { messages: 2 } });
    const { messages } = await runScript([searchTurn, searchTurn, searchTurn, { text: "done" }], [summarize]);
    expect(summarizer.callCount).toBeGreaterThan(0);
    const summaries = messages.filter(
      (m) => (m.additional_kwargs as { lc_source?: unknown }).lc_source === "summarization",
    );
    expect(summaries.length).toBeGreaterThan(0);
    for (const summary of summaries) {
      expect(HumanMessage.isInstance(summary)).toBe(true);
      expect(String(summary.content)).toContain("the searches found things");
    }
  });
});
