import { ChatAnthropic } from "@langchain/anthropic";
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolCallRepairMiddleware } from "../../../src/guards/repair/ToolCallRepairMiddleware.js";
import { anthropicProblem, NO_PROBLEMS, openAICompletionsProblem, providerPayloadProblems } from "./payloads.js";

/**
 * Offline runs of the real ChatOpenAI and ChatAnthropic classes (a fake `fetch` plays the API):
 * the provider's own parsing produces the bad calls, and the request each model sends next is
 * checked for pairing exactly as the API would receive it.
 */

function readFileTool() {
  const paths: string[] = [];
  const t = tool(async ({ path }: { path: string }) => (paths.push(path), `content of ${path}`), {
    name: "read_file",
    description: "Read a file",
    schema: z.object({ path: z.string() }),
  });
  return { tool: t, paths };
}

/** A Chat Completions API: first a reply with the given tool calls, then "done". Records request bodies. */
function fakeOpenAI(toolCalls: Array<{ id: string; name: string; arguments: string }>) {
  const requests: Array<Record<string, any>> = [];
  const fetch = async (_url: unknown, init: { body: string }) => {
    requests.push(JSON.parse(init.body));
    const first = requests.length === 1;
    const message = first
      ? {
          role: "assistant",
          content: null,
          tool_calls: toolCalls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.arguments },
          })),
        }
      : { role: "assistant", content: "done" };
    const body = {
      id: `chatcmpl-${requests.length}`,
      object: "chat.completion",
      created: 1,
      model: "gpt-4o",
      choices: [{ index: 0, message, finish_reason: first ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
    return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
  };
  return {
    model: new ChatOpenAI({ model: "gpt-4o", apiKey: "sk-offline", configuration: { fetch: fetch as never } }),
    requests,
  };
}

/** A streaming Messages API whose first reply is a tool_use cut off by max_tokens, then "done". */
function fakeAnthropic(partialJson: string) {
  const requests: Array<Record<string, any>> = [];
  const usage = { input_tokens: 1, output_tokens: 1 };
  const fetch = async (_url: unknown, init: { body: string }) => {
    requests.push(JSON.parse(init.body));
    const id = `msg_${requests.length}`;
    const events =
      requests.length === 1
        ? [
            {
              type: "message_start",
              message: {
                id,
                type: "message",
                role: "assistant",
                model: "claude",
                content: [],
                stop_reason: null,
                usage,
              },
            },
            {
              type: "content_block_start",
              index: 0,
              content_block: { type: "tool_use", id: "toolu_1", name: "read_file", input: {} },
            },
            { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: partialJson } },
            { type: "content_block_stop", index: 0 },
            { type: "message_delta", delta: { stop_reason: "max_tokens" }, usage: { output_tokens: 50 } },
            { type: "message_stop" },
          ]
        : [
            {
              type: "message_start",
              message: {
                id,
                type: "message",
                role: "assistant",
                model: "claude",
                content: [],
                stop_reason: null,
                usage,
              },
            },
            { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
            { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "done" } },
            { type: "content_block_stop", index: 0 },
            { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
            { type: "message_stop" },
          ];
    const sse = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
    return new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  return {
    model: new ChatAnthropic({
      model: "claude-sonnet-4-5",
      apiKey: "offline",
      streaming: true,
      clientOptions: { fetch: fetch as never },
    }),
    requests,
  };
}

describe("provider facts (pinned)", () => {
  it("the converters drop invalid_tool_calls, so answering one in place leaves an orphan result", () => {
    const history: BaseMessage[] = [
      new HumanMessage("go"),
      new AIMessage({
        id: "m1",
        content: "",
        invalid_tool_calls: [
          { type: "invalid_tool_call", id: "c1", name: "read_file", args: '{"path":"/etc/pas', error: "bad" },
        ],
      }),
      new ToolMessage({ tool_call_id: "c1", content: "your arguments were cut off", status: "error" }),
    ];
    const problems = providerPayloadProblems(history);
    expect(problems.openaiCompletions).toMatch(/no open assistant tool call/);
    expect(problems.openaiResponses).toMatch(/no open function_call/);
    expect(problems.anthropic).toMatch(/did not request/);
  });

  it("a streamed call cut off mid-string is parsed into tool_calls by LangChain core, not reported invalid", () => {
    const chunk = new AIMessageChunk({
      content: "",
      tool_call_chunks: [{ type: "tool_call_chunk", id: "c1", name: "read_file", args: '{"path":"/etc/pas', index: 0 }],
    });
    expect(chunk.tool_calls).toEqual([expect.objectContaining({ args: { path: "/etc/pas" } })]);
    expect(chunk.invalid_tool_calls).toEqual([]);
  });

  it("so without the middleware a cut-off streamed Anthropic call runs with the truncated path", async () => {
    const read = readFileTool();
    const { model } = fakeAnthropic('{"path":"/data/reports/2024/annual-summ');
    await createAgent({ model, tools: [read.tool] }).invoke({ messages: [new HumanMessage("go")] });
    expect(read.paths).toEqual(["/data/reports/2024/annual-summ"]);
  });
});

describe("ToolCallRepairMiddleware with the real provider classes", () => {
  it("OpenAI: repairs one malformed call, answers another, and the next request pairs every call", async () => {
    const read = readFileTool();
    const { model, requests } = fakeOpenAI([
      { id: "call_cut", name: "read_file", arguments: '{"path":"/etc/pas' },
      { id: "call_quotes", name: "read_file", arguments: "{'path': 'notes.md'}" },
    ]);
    const agent = createAgent({ model, tools: [read.tool], middleware: [new ToolCallRepairMiddleware()] });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(read.paths).toEqual(["notes.md"]);
    expect(requests).toHaveLength(2);
    expect(openAICompletionsProblem(requests[1]!.messages)).toBeUndefined();
    const assistant = requests[1]!.messages.find((m: { role: string }) => m.role === "assistant");
    expect(
      assistant.tool_calls.map((c: { id: string; function: { arguments: string } }) => [c.id, c.function.arguments]),
    ).toEqual([
      ["call_cut", "{}"],
      ["call_quotes", '{"path":"notes.md"}'],
    ]);
    expect(providerPayloadProblems(messages as BaseMessage[])).toEqual(NO_PROBLEMS);
  });

  it("OpenAI: a turn with nothing runnable goes back to the model instead of ending", async () => {
    const { model, requests } = fakeOpenAI([{ id: "call_cut", name: "read_file", arguments: '{"path":"/etc/pas' }]);
    const agent = createAgent({ model, tools: [readFileTool().tool], middleware: [new ToolCallRepairMiddleware()] });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(requests).toHaveLength(2);
    expect(String(messages.at(-1)!.content)).toBe("done");
    expect(openAICompletionsProblem(requests[1]!.messages)).toBeUndefined();
  });

  it("OpenAI: a call whose JSON repeats a key is refused, not decided by JSON.parse", async () => {
    const read = readFileTool();
    const { model, requests } = fakeOpenAI([
      { id: "call_dup", name: "read_file", arguments: '{"path":"notes.md","path":"/etc/passwd"}' },
    ]);
    const { messages } = await createAgent({ model, tools: [read.tool] }).invoke({
      messages: [new HumanMessage("go")],
    });
    expect(read.paths).toEqual(["/etc/passwd"]); // without the middleware: the last value wins, silently
    const guarded = fakeOpenAI([
      { id: "call_dup", name: "read_file", arguments: '{"path":"notes.md","path":"/etc/passwd"}' },
    ]);
    const again = readFileTool();
    const result = await createAgent({
      model: guarded.model,
      tools: [again.tool],
      middleware: [new ToolCallRepairMiddleware()],
    }).invoke({ messages: [new HumanMessage("go")] });
    expect(again.paths).toEqual([]);
    expect(String(result.messages.find(ToolMessage.isInstance)!.content)).toMatch(/give key "path" twice/);
    expect(openAICompletionsProblem(guarded.requests[1]!.messages)).toBeUndefined();
    expect(requests).toHaveLength(2);
    expect(messages).toHaveLength(4);
  });

  it("Anthropic streaming: refuses the call LangChain completed from cut-off JSON, and the next request pairs it", async () => {
    const read = readFileTool();
    const { model, requests } = fakeAnthropic('{"path":"/data/reports/2024/annual-summ');
    const agent = createAgent({ model, tools: [read.tool], middleware: [new ToolCallRepairMiddleware()] });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(read.paths).toEqual([]);
    expect(requests).toHaveLength(2);
    expect(anthropicProblem(requests[1]!.messages)).toBeUndefined();
    const result = requests[1]!.messages.at(-1).content[0];
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1" });
    expect(JSON.stringify(result.content)).toMatch(/end inside a string that has no closing quote/);
    expect(providerPayloadProblems(messages as BaseMessage[])).toEqual(NO_PROBLEMS);
  });

  it("Anthropic streaming: a complete call is left exactly as the provider parsed it", async () => {
    const read = readFileTool();
    const { model } = fakeAnthropic('{"path":"/data/a.md"}');
    const agent = createAgent({ model, tools: [read.tool], middleware: [new ToolCallRepairMiddleware()] });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(read.paths).toEqual(["/data/a.md"]);
    expect((messages[1] as AIMessage).response_metadata).not.toHaveProperty("harness_kit_review");
  });
});
