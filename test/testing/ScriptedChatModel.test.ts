import { describe, expect, it } from "vitest";
import { createAgent, summarizationMiddleware } from "langchain";
import { AIMessage, AIMessageChunk, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import {
  InvalidScriptTurnError,
  ScriptExhaustedError,
  ScriptedChatModel,
  assertToolCallPairing,
} from "../../src/testing/index.js";
import { SCRIPT_FINISHED_TEXT } from "../../src/testing/ScriptedChatModel.js";

function makeAdd(log: Array<{ a: number; b: number }> = []) {
  return tool(
    async ({ a, b }) => {
      log.push({ a, b });
      return String(a + b);
    },
    { name: "add", description: "Adds two numbers.", schema: z.object({ a: z.number(), b: z.number() }) },
  );
}

function aiMessages(messages: BaseMessage[]): AIMessage[] {
  return messages.filter((m): m is AIMessage => AIMessage.isInstance(m));
}

describe("ScriptedChatModel on its own", () => {
  it("plays spec turns in order, with tool calls, invalid calls and usage", async () => {
    const model = new ScriptedChatModel({
      turns: [
        {
          text: "thinking",
          toolCalls: [
            { name: "add", args: { a: 1, b: 2 } },
            { name: "noop", id: "fixed-id" },
          ],
        },
        {
          invalidToolCalls: [{ name: "add", args: '{"a": 1', error: "cut off" }],
          usage: { input_tokens: 7, output_tokens: 3 },
        },
      ],
    });
    const first = await model.invoke([new HumanMessage("go")]);
    expect(first.text).toBe("thinking");
    expect(first.tool_calls).toHaveLength(2);
    expect(first.tool_calls![0]).toMatchObject({ type: "tool_call", name: "add", args: { a: 1, b: 2 } });
    expect(first.tool_calls![1]).toMatchObject({ name: "noop", args: {}, id: "fixed-id" });
    expect(first.tool_calls![0]!.id).toMatch(/^scripted-/);

    const second = await model.invoke([new HumanMessage("again")]);
    expect(second.tool_calls).toEqual([]);
    expect(second.invalid_tool_calls).toEqual([
      expect.objectContaining({ type: "invalid_tool_call", name: "add", args: '{"a": 1', error: "cut off" }),
    ]);
    expect(second.usage_metadata).toEqual({ input_tokens: 7, output_tokens: 3, total_tokens: 10 });
    expect(model.callCount).toBe(2);
    expect(model.seen.map((call) => call.map((m) => m.text))).toEqual([["go"], ["again"]]);
    expect(model._llmType()).toBe("scripted");
  });

  it("uses AIMessage turns as given, adding an id only when missing", async () => {
    const withId = new AIMessage({ content: "mine", id: "keep-me" });
    const withoutId = new AIMessage({
      content: "no id",
      tool_calls: [{ name: "t", args: { x: 1 }, id: "c1", type: "tool_call" }],
    });
    const model = new ScriptedChatModel({ turns: [withId, withoutId] });
    const first = await model.invoke("a");
    const second = await model.invoke("b");
    expect(first.id).toBe("keep-me");
    expect(first.text).toBe("mine");
    expect(second.id).toMatch(/^scripted-/);
    expect(second.text).toBe("no id");
    expect(second.tool_calls).toEqual([expect.objectContaining({ name: "t", args: { x: 1 }, id: "c1" })]);
    expect(withoutId.id).toBeUndefined();
  });

  it("calls function turns with the messages and the call index, following nested results", async () => {
    const calls: Array<[string[], number]> = [];
    const model = new ScriptedChatModel({
      turns: [
        { text: "zero" },
        (messages, index) => {
          calls.push([messages.map((m) => m.text), index]);
          return () => new AIMessage(`echo ${messages.at(-1)!.text}`);
        },
        async (_messages, index) => ({ text: `async ${index}` }),
      ],
    });
    await model.invoke("a");
    expect((await model.invoke("hello")).text).toBe("echo hello");
    expect((await model.invoke("c")).text).toBe("async 2");
    expect(calls).toEqual([[["hello"], 1]]);
  });

  it("answers '(script finished)' once exhausted by default", async () => {
    const model = new ScriptedChatModel({ turns: [{ text: "only" }] });
    expect(model.remainingTurns).toBe(1);
    await model.invoke("a");
    expect(model.remainingTurns).toBe(0);
    const extra = await model.invoke("b");
    expect(extra.text).toBe(SCRIPT_FINISHED_TEXT);
    expect(extra.tool_calls).toEqual([]);
    expect(model.callCount).toBe(2);
  });

  it("throws a typed error once exhausted with onExhausted 'throw'", async () => {
    const model = new ScriptedChatModel({ turns: [{ text: "only" }], onExhausted: "throw" });
    await model.invoke("a");
    const error = await model.invoke("b").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScriptExhaustedError);
    expect(error).toMatchObject({ callIndex: 1, turnCount: 1 });
    expect((error as Error).message).toContain("call 2 has no scripted turn");
  });

  it("rejects a turn that is not a turn", async () => {
    const model = new ScriptedChatModel({ turns: [() => null as never] });
    await expect(model.invoke("a")).rejects.toBeInstanceOf(InvalidScriptTurnError);
  });

  it("streams the same message it would return, invalid calls included", async () => {
    const turns = [
      { text: "hi", toolCalls: [{ name: "add", args: { a: 1, b: 2 }, id: "c1" }] },
      // Partial JSON that core's chunk parser would otherwise accept as {a: 1}.
      { invalidToolCalls: [{ name: "add", args: '{"a": 1', id: "c2" }] },
    ];
    const model = new ScriptedChatModel({ turns });
    const streamed: AIMessageChunk[] = [];
    for (let i = 0; i < turns.length; i++) {
      for await (const chunk of await model.stream("go")) streamed.push(chunk);
    }
    expect(streamed).toHaveLength(2);
    expect(streamed[0]!.text).toBe("hi");
    expect(streamed[0]!.tool_calls).toEqual([expect.objectContaining({ name: "add", args: { a: 1, b: 2 }, id: "c1" })]);
    expect(streamed[1]!.tool_calls).toEqual([]);
    expect(streamed[1]!.invalid_tool_calls).toEqual([
      expect.objectContaining({ name: "add", args: '{"a": 1', id: "c2" }),
    ]);
    expect(model.callCount).toBe(2);
  });

  it("gives every message and generated call id a random per-model prefix", async () => {
    const script = () => [{ toolCalls: [{ name: "x" }, { name: "y" }] }, { text: "done" }];
    const a = new ScriptedChatModel({ turns: script() });
    const b = new ScriptedChatModel({ turns: script() });
    const ids: string[] = [];
    for (const model of [a, b]) {
      for (let i = 0; i < 2; i++) {
        const message = await model.invoke("go");
        ids.push(message.id!, ...message.tool_calls!.map((c) => c.id!));
      }
    }
    expect(ids).toHaveLength(8);
    expect(new Set(ids).size).toBe(8);
    expect(ids[0]!.split("-").slice(0, 2)).not.toEqual(ids[4]!.split("-").slice(0, 2));
  });

  it("bindTools returns a model on the same script that records the tool names", async () => {
    const model = new ScriptedChatModel({ turns: [{ text: "one" }, { text: "two" }] });
    const bound = model.bindTools([makeAdd(), { type: "function", function: { name: "raw_fn", parameters: {} } }]);
    expect(bound.boundToolNames).toEqual(["add", "raw_fn"]);
    expect(model.boundToolNames).toEqual([]);
    expect(model.toolBindings).toEqual([["add", "raw_fn"]]);
    expect((await bound.invoke("a")).text).toBe("one");
    expect((await model.invoke("b")).text).toBe("two");
    expect(bound.callCount).toBe(2);
    expect(model.seen).toBe(bound.seen);
  });
});

describe("ScriptedChatModel inside createAgent", () => {
  it("drives a real tool loop and advances the script once per model call", async () => {
    const log: Array<{ a: number; b: number }> = [];
    const model = new ScriptedChatModel({
      turns: [
        {
          toolCalls: [
            { name: "add", args: { a: 2, b: 3 } },
            { name: "add", args: { a: 10, b: 1 } },
          ],
        },
        (messages) => ({
          text: `sums: ${messages
            .filter((m) => m.type === "tool")
            .map((m) => m.text)
            .join(",")}`,
        }),
      ],
    });
    const agent = createAgent({ model, tools: [makeAdd(log)] });
    const result = await agent.invoke({ messages: [new HumanMessage("add things")] });

    expect(log).toEqual([
      { a: 2, b: 3 },
      { a: 10, b: 1 },
    ]);
    expect(result.messages.at(-1)!.text).toBe("sums: 5,11");
    expect(model.callCount).toBe(2);
    expect(model.toolBindings.every((names) => names.includes("add"))).toBe(true);
    expect(model.seen[1]!.filter((m) => m.type === "tool")).toHaveLength(2);
    assertToolCallPairing(result.messages);
  });

  it("keeps every AI message across runs on one MemorySaver thread, even with a new model", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "scripted-ids" } };
    const call = { toolCalls: [{ name: "add", args: { a: 1, b: 1 } }] };

    const firstModel = new ScriptedChatModel({ turns: [call, { text: "done 1" }, call, { text: "done 2" }] });
    const first = createAgent({ model: firstModel, tools: [makeAdd()], checkpointer });
    await first.invoke({ messages: [new HumanMessage("run 1")] }, config);
    await first.invoke({ messages: [new HumanMessage("run 2")] }, config);
    // A fresh model resuming the thread, as another process would.
    const secondModel = new ScriptedChatModel({ turns: [call, { text: "done 3" }] });
    const second = createAgent({ model: secondModel, tools: [makeAdd()], checkpointer });
    const result = await second.invoke({ messages: [new HumanMessage("run 3")] }, config);

    const ais = aiMessages(result.messages);
    expect(ais.map((m) => m.text)).toEqual(["", "done 1", "", "done 2", "", "done 3"]);
    const ids = [...ais.map((m) => m.id), ...ais.flatMap((m) => m.tool_calls!.map((c) => c.id))];
    expect(ids).toHaveLength(9);
    expect(new Set(ids).size).toBe(9);
    assertToolCallPairing(result.messages);
  });

  it("works with agent.stream in 'messages' and 'values' modes", async () => {
    const model = new ScriptedChatModel({
      turns: [{ toolCalls: [{ name: "add", args: { a: 4, b: 4 } }] }, { text: "eight" }],
    });
    const agent = createAgent({ model, tools: [makeAdd()] });
    const texts: string[] = [];
    for await (const [chunk] of await agent.stream(
      { messages: [new HumanMessage("go")] },
      { streamMode: "messages" },
    )) {
      texts.push(chunk.text);
    }
    expect(texts).toContain("8");
    expect(texts).toContain("eight");

    const again = new ScriptedChatModel({ turns: [{ text: "streamed" }] });
    let last: { messages: BaseMessage[] } | undefined;
    for await (const state of await createAgent({ model: again, tools: [] }).stream(
      { messages: [new HumanMessage("go")] },
      { streamMode: "values" },
    )) {
      last = state;
    }
    expect(last!.messages.at(-1)!.text).toBe("streamed");
  });

  it("serves the summarization middleware's own model call from the script", async () => {
    const model = new ScriptedChatModel({
      turns: [
        { toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] },
        { toolCalls: [{ name: "add", args: { a: 3, b: 4 } }] },
        // The summarizer calls the model directly with its prompt.
        (messages) => ({ text: messages.length === 1 ? "SUMMARY: two additions" : "unexpected" }),
        { text: "done" },
      ],
    });
    const agent = createAgent({
      model,
      tools: [makeAdd()],
      middleware: [summarizationMiddleware({ model, trigger: { messages: 5 }, keep: { messages: 2 } })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(model.callCount).toBe(4);
    expect(result.messages.at(-1)!.text).toBe("done");
    expect(result.messages.some((m) => m.text.includes("SUMMARY: two additions"))).toBe(true);
  });
});

describe("ScriptedChatModel.withStructuredOutput", () => {
  it("withStructuredOutput parses a scripted call to the schema tool", async () => {
    const model = new ScriptedChatModel({ turns: [{ toolCalls: [{ name: "Answer", args: { answer: "42" } }] }] });
    const structured = model.withStructuredOutput(z.object({ answer: z.string() }), { name: "Answer" });
    expect(await structured.invoke("question")).toEqual({ answer: "42" });
    expect(model.toolBindings).toEqual([["Answer"]]);
  });

  it("validates against a zod schema and can return the raw message", async () => {
    const schema = z.object({ answer: z.string() });
    const model = new ScriptedChatModel({
      turns: [
        { toolCalls: [{ name: "extract", args: { answer: 1 } }] },
        { text: "", toolCalls: [{ name: "extract", args: { answer: "ok" } }] },
        { text: "no call" },
      ],
    });
    await expect(model.withStructuredOutput(schema).invoke("q")).rejects.toThrow();
    const raw = await model.withStructuredOutput(schema, { includeRaw: true }).invoke("q");
    expect(raw.parsed).toEqual({ answer: "ok" });
    expect(AIMessage.isInstance(raw.raw)).toBe(true);
    await expect(model.withStructuredOutput(schema).invoke("q")).rejects.toBeInstanceOf(InvalidScriptTurnError);
  });
});
