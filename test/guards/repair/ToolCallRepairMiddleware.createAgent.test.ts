import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, interrupt, MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware, toolStrategy, type AgentMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { GuardStopError } from "../../../src/core/errors.js";
import type { Signal } from "../../../src/core/signals.js";
import { REVIEW_KEY } from "../../../src/guards/repair/reviewTurn.js";
import {
  ToolCallRepairMiddleware,
  type ToolCallRepairOptions,
} from "../../../src/guards/repair/ToolCallRepairMiddleware.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";

/** A read_file tool that records the arguments of every real execution. */
function readFileTool() {
  const runs: Array<Record<string, unknown>> = [];
  const t = tool(
    async (args: { path: string; limit?: number }) => {
      runs.push(args);
      return `content of ${args.path}`;
    },
    {
      name: "read_file",
      description: "Read a file",
      schema: z.object({ path: z.string(), limit: z.number().int().optional() }),
    },
  );
  return { tool: t, runs };
}

async function run(turns: ScriptedTurn[], options: { middleware?: unknown[]; tools?: unknown[] } = {}) {
  const read = readFileTool();
  const model = new ScriptedChatModel({ turns });
  const tools = (options.tools ?? [read.tool]) as Array<typeof read.tool>;
  const agent = createAgent({ model, tools, middleware: (options.middleware ?? []) as AgentMiddleware[] });
  const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 100 });
  return { messages: result.messages as BaseMessage[], model, runs: read.runs };
}

function withRepair(options: ToolCallRepairOptions = {}) {
  const signals: Signal[] = [];
  return { middleware: new ToolCallRepairMiddleware({ ...options, onSignal: (s) => signals.push(s) }), signals };
}

const toolTexts = (messages: BaseMessage[]) => messages.filter(ToolMessage.isInstance).map((m) => String(m.content));
const cutOff = { invalidToolCalls: [{ name: "read_file", args: '{"path":"/data/report.md","limit":10' }] };

describe("LangChain facts this middleware relies on (pinned)", () => {
  it("a turn whose only tool call did not parse ends the run silently, the call unanswered", async () => {
    const { messages, model, runs } = await run([cutOff, { text: "never reached" }]);
    expect(model.callCount).toBe(1);
    expect(messages.map((m) => m.type)).toEqual(["human", "ai"]);
    expect((messages[1] as AIMessage).invalid_tool_calls).toHaveLength(1);
    expect(runs).toHaveLength(0);
  });

  it("invalid arguments come back to the model with a stack trace", async () => {
    const { messages } = await run([{ toolCalls: [{ name: "read_file", args: { path: 5 } }] }, { text: "done" }]);
    expect(toolTexts(messages)[0]).toMatch(/\n\s+at .*\.(ts|js):\d+/);
  });

  it("a pass-through wrapToolCall middleware makes a tool's exception end the run", async () => {
    const boom = tool(
      async () => {
        throw new Error("disk on fire");
      },
      { name: "boom", description: "b", schema: z.object({}) },
    );
    const pass = createMiddleware({ name: "pass", wrapToolCall: async (request, handler) => handler(request) });
    await expect(
      run([{ toolCalls: [{ name: "boom" }] }, { text: "done" }], { tools: [boom], middleware: [pass] }),
    ).rejects.toThrow(/disk on fire/);
  });

  it("a call to a tool that does not exist gets a generic error listing every tool", async () => {
    const { messages } = await run([{ toolCalls: [{ name: "read_fil", args: { path: "x" } }] }, { text: "done" }]);
    expect(toolTexts(messages)[0]).toBe("Error: read_fil is not a valid tool, try one of [read_file].");
  });

  it("a call named extract-*, without any responseFormat, never reaches the tools node: the run ends with it unanswered", async () => {
    const { messages, model } = await run([
      { toolCalls: [{ name: "extract-user_info", args: { name: "Ada" } }] },
      { text: "never reached" },
    ]);
    expect(model.callCount).toBe(1);
    expect(messages.map((m) => m.type)).toEqual(["human", "ai"]);
  });
});

describe("ToolCallRepairMiddleware: malformed arguments", () => {
  it("runs a call whose JSON only needed a syntax repair, and says what changed", async () => {
    const { middleware, signals } = withRepair();
    const { messages, runs } = await run(
      [{ invalidToolCalls: [{ name: "read_file", args: "{'path': '/data/a.md', limit: 5,}" }] }, { text: "done" }],
      { middleware: [middleware] },
    );
    expect(runs).toEqual([{ path: "/data/a.md", limit: 5 }]);
    const ai = messages[1] as AIMessage;
    expect(ai.tool_calls).toHaveLength(1);
    expect(ai.invalid_tool_calls).toEqual([]);
    expect(signals).toEqual([
      expect.objectContaining({
        guard: "ToolCallRepairMiddleware",
        action: "warn",
        reason: "repaired_arguments",
        tool: "read_file",
        detail: { repairs: ["single_quotes", "unquoted_keys", "trailing_commas"] },
      }),
    ]);
    assertToolCallPairing(messages);
  });

  it("keeps the model's message id, so the repaired message replaces it in the thread", async () => {
    const { middleware } = withRepair();
    const model = new ScriptedChatModel({
      turns: [{ invalidToolCalls: [{ name: "read_file", args: "{'path': 'a'}" }] }, { text: "done" }],
    });
    const agent = createAgent({ model, tools: [readFileTool().tool], middleware: [middleware] });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
    const seen = model.seen[1]!.find(AIMessage.isInstance)!;
    expect(messages.filter(AIMessage.isInstance)).toHaveLength(2);
    expect((messages[1] as AIMessage).id).toBe(seen.id);
    expect((messages[1] as AIMessage).response_metadata[REVIEW_KEY]).toEqual([
      expect.objectContaining({ verdict: "repaired" }),
    ]);
  });

  it("answers a cut-off call with what is wrong, goes back to the model, and runs the resent call", async () => {
    const { middleware, signals } = withRepair();
    const { messages, model, runs } = await run(
      [cutOff, { toolCalls: [{ name: "read_file", args: { path: "/data/report.md", limit: 100 } }] }, { text: "done" }],
      {
        middleware: [middleware],
      },
    );
    expect(runs).toEqual([{ path: "/data/report.md", limit: 100 }]);
    expect(model.callCount).toBe(3);
    expect(toolTexts(messages)[0]).toBe(
      'Your call to read_file was not run: its arguments end in the middle of a number, so the number may be cut off (near: {"path":"/data/report.md","limit":10). Send the call again with complete, valid JSON arguments.',
    );
    expect(signals[0]).toMatchObject({
      action: "directive",
      reason: "unusable_arguments",
      detail: { problem: "cut_off" },
    });
    expect(String(messages.at(-1)!.content)).toBe("done");
    assertToolCallPairing(messages);
  });

  it("runs the good calls of a batch and answers the bad ones", async () => {
    const { middleware } = withRepair();
    const turn: ScriptedTurn = {
      toolCalls: [{ name: "read_file", args: { path: "ok.md" } }],
      invalidToolCalls: [
        { name: "read_file", args: '{"path":"a.md","path":"b.md"}' },
        { name: "read_file", args: "{'path':'fixed.md',}" },
      ],
    };
    const { messages, runs } = await run([turn, { text: "done" }], { middleware: [middleware] });
    expect(runs.map((r) => r.path).sort()).toEqual(["fixed.md", "ok.md"]);
    expect(toolTexts(messages).filter((t) => t.startsWith("Your call"))).toEqual([
      expect.stringContaining('give key "path" twice'),
    ]);
    assertToolCallPairing(messages);
  });

  it("rejects a repair that does not match the tool's schema", async () => {
    const { middleware } = withRepair();
    const { messages, runs } = await run(
      [{ invalidToolCalls: [{ name: "read_file", args: "{path: 42}" }] }, { text: "done" }],
      { middleware: [middleware] },
    );
    expect(runs).toHaveLength(0);
    expect(toolTexts(messages)[0]).toMatch(
      /even with the syntax fixed they do not match the tool's schema \(path: .*expected string/,
    );
  });
});

describe("ToolCallRepairMiddleware: tools that do not exist", () => {
  const phantom: ScriptedTurn = { toolCalls: [{ name: "readFile", args: { path: "x" } }] };

  it("tells the model the tool does not exist and names the closest real tools", async () => {
    const { middleware, signals } = withRepair();
    const { messages } = await run([phantom, { text: "done" }], { middleware: [middleware] });
    expect(toolTexts(messages)[0]).toBe(
      'Tool "readFile" does not exist. The closest available tools are read_file; call one of those instead.',
    );
    expect(signals[0]).toMatchObject({
      action: "directive",
      reason: "unknown_tool",
      tool: "readFile",
      detail: { closest: ["read_file"], count: 1 },
    });
  });

  it("stops the run at the third unusable call, answering every pending call first", async () => {
    const { middleware, signals } = withRepair();
    const turns: ScriptedTurn[] = [
      phantom,
      phantom,
      {
        toolCalls: [
          { name: "read_file", args: { path: "a" } },
          { name: "readFile", args: { path: "x" } },
        ],
      },
      { text: "never" },
    ];
    const { messages, model, runs } = await run(turns, { middleware: [middleware] });
    expect(model.callCount).toBe(3);
    expect(runs).toHaveLength(0);
    expect(signals.map((s) => s.action)).toEqual(["directive", "directive", "stop"]);
    const last = messages.at(-1) as AIMessage;
    expect(String(last.content)).toMatch(
      /^Run stopped by ToolCallRepairMiddleware: the model made 3 tool calls that cannot run/,
    );
    expect(toolTexts(messages).slice(-2)).toEqual([
      expect.stringMatching(/^Not run: ToolCallRepairMiddleware stopped the run/),
      expect.stringMatching(/^Tool "readFile" does not exist/),
    ]);
    assertToolCallPairing(messages);
  });

  it("starts counting again after a new user message", async () => {
    const { middleware } = withRepair({ stopAt: 2 });
    const model = new ScriptedChatModel({ turns: [phantom, { text: "sorry" }, phantom, { text: "done" }] });
    const agent = createAgent({
      model,
      tools: [readFileTool().tool],
      middleware: [middleware],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "restart-count" } };
    await agent.invoke({ messages: [new HumanMessage("first")] }, config);
    const { messages } = await agent.invoke({ messages: [new HumanMessage("second")] }, config);
    expect(String(messages.at(-1)!.content)).toBe("done");
  });

  it("with exitBehavior 'throw' throws GuardStopError; with 'directive' never stops", async () => {
    const turns = [phantom, phantom, phantom, { text: "done" }];
    const error = await run(turns, { middleware: [withRepair({ exitBehavior: "throw" }).middleware] }).catch(
      (e: unknown) => e,
    );
    expect(GuardStopError.in(error)).toMatchObject({ guard: "ToolCallRepairMiddleware" });
    const { messages } = await run(turns, { middleware: [withRepair({ exitBehavior: "directive" }).middleware] });
    expect(String(messages.at(-1)!.content)).toBe("done");
  });

  it("answers a phantom extract-user_info when the agent has no responseFormat, keeping the pairing", async () => {
    const { middleware, signals } = withRepair();
    const phantomExtract: ScriptedTurn = { toolCalls: [{ name: "extract-user_info", args: { name: "Ada" } }] };
    const { messages, model } = await run([phantomExtract, { text: "done" }], { middleware: [middleware] });
    assertToolCallPairing(messages);
    expect(model.callCount).toBe(2);
    expect(toolTexts(messages)).toEqual([
      expect.stringMatching(/^Tool "extract-user_info" does not exist\. The closest available tools are read_file/),
    ]);
    // kept as UNNAMED_CALL: createAgent routes no call named extract-* to the tools node, where the answer is written
    expect(signals[0]).toMatchObject({ action: "directive", reason: "unknown_tool", tool: "unnamed_tool_call" });
    expect(String(messages.at(-1)!.content)).toBe("done");
  });

  it("answers a phantom extract-user_info beside a toolStrategy responseFormat too, then takes the structured response", async () => {
    const { middleware, signals } = withRepair();
    const responseFormat = toolStrategy(z.object({ name: z.string() }));
    const turns: ScriptedTurn[] = [
      { toolCalls: [{ name: "extract-user_info", args: { name: "Ada" } }] },
      { toolCalls: [{ name: responseFormat[0]!.name, args: { name: "Ada" } }] },
    ];
    const agent = createAgent({
      model: new ScriptedChatModel({ turns }),
      tools: [readFileTool().tool],
      middleware: [middleware],
      responseFormat,
    });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    assertToolCallPairing(result.messages);
    expect(toolTexts(result.messages)[0]).toMatch(/^Tool "extract-user_info" does not exist/);
    expect(result.structuredResponse).toEqual({ name: "Ada" });
    expect(signals.map((s) => s.reason)).toEqual(["unknown_tool"]);
  });

  it("runs a real tool named extract_user_info like any other", async () => {
    const { middleware, signals } = withRepair();
    const extract = tool(async ({ text }: { text: string }) => `user: ${text}`, {
      name: "extract_user_info",
      description: "extract",
      schema: z.object({ text: z.string() }),
    });
    const { messages } = await run(
      [{ toolCalls: [{ name: "extract_user_info", args: { text: "Ada" } }] }, { text: "done" }],
      { middleware: [middleware], tools: [extract] },
    );
    assertToolCallPairing(messages);
    expect(toolTexts(messages)).toEqual(["user: Ada"]);
    expect(signals).toEqual([]);
  });

  it("leaves the structured-output tool of a toolStrategy responseFormat alone, untitled and titled", async () => {
    const schemas = [
      z.object({ name: z.string(), age: z.number() }),
      z.object({ city: z.string() }).meta({ title: "Address" }),
    ];
    for (const schema of schemas) {
      const { middleware, signals } = withRepair();
      const responseFormat = toolStrategy(schema);
      const name = responseFormat[0]!.name;
      const args = "city" in schema.shape ? { city: "Paris" } : { name: "Ada", age: 36 };
      const model = new ScriptedChatModel({
        turns: [{ toolCalls: [{ name: "read_file", args: { path: "a" } }] }, { toolCalls: [{ name, args }] }],
      });
      const agent = createAgent({ model, tools: [readFileTool().tool], middleware: [middleware], responseFormat });
      const result = await agent.invoke({ messages: [new HumanMessage("go")] });
      assertToolCallPairing(result.messages);
      expect(result.structuredResponse, name).toEqual(args);
      expect(signals, name).toEqual([]);
    }
  });

  it("derives the count from the thread, not the middleware instance (resume in a new agent)", async () => {
    const checkpointer = new MemorySaver();
    const ask = tool(async () => String(interrupt("approve?")), {
      name: "ask_human",
      description: "a",
      schema: z.object({}),
    });
    const turns: ScriptedTurn[] = [
      phantom,
      phantom,
      { toolCalls: [{ name: "ask_human" }] },
      phantom,
      { text: "never" },
    ];
    const model = new ScriptedChatModel({ turns });
    const build = () =>
      createAgent({
        model,
        tools: [readFileTool().tool, ask],
        middleware: [new ToolCallRepairMiddleware({ stopAt: 3 })],
        checkpointer,
      });
    const config = { configurable: { thread_id: "resume-count" } };
    const first = await build().invoke({ messages: [new HumanMessage("go")] }, config);
    expect(first.__interrupt__).toBeDefined();
    const { messages } = await build().invoke(new Command({ resume: "yes" }), config);
    expect(String(messages.at(-1)!.content)).toMatch(/^Run stopped by ToolCallRepairMiddleware/);
  });
});

describe("ToolCallRepairMiddleware: arguments, exceptions and results", () => {
  it("checks arguments against the schema before the tool runs, in one line without a stack trace", async () => {
    const { middleware, signals } = withRepair();
    const { messages, runs } = await run(
      [{ toolCalls: [{ name: "read_file", args: { path: 5, limit: 1.5 } }] }, { text: "done" }],
      { middleware: [middleware] },
    );
    expect(runs).toHaveLength(0);
    const text = toolTexts(messages)[0]!;
    expect(text).toMatch(
      /^The arguments for read_file do not match its schema: path: .*expected string.*; limit: .*expected int.*Fix them and call read_file again\.$/,
    );
    expect(text).not.toContain("\n");
    expect(signals[0]).toMatchObject({ action: "directive", reason: "schema_mismatch" });
  });

  it("turns a tool's exception into a short error message instead of a crashed run", async () => {
    const boom = tool(
      async () => {
        throw new TypeError("cannot read properties of undefined (reading 'size')");
      },
      { name: "boom", description: "b", schema: z.object({}) },
    );
    const { middleware, signals } = withRepair();
    const { messages } = await run([{ toolCalls: [{ name: "boom" }] }, { text: "done" }], {
      tools: [boom],
      middleware: [middleware],
    });
    const answer = messages.find(ToolMessage.isInstance)!;
    expect(answer.content).toBe(`Tool "boom" failed: TypeError: cannot read properties of undefined (reading 'size')`);
    expect(answer.status).toBe("error");
    expect(signals[0]).toMatchObject({ action: "warn", reason: "tool_error" });
  });

  it("uses formatToolError, and falls back to the default when it throws", async () => {
    const boom = tool(
      async () => {
        throw new Error("secret internals");
      },
      { name: "boom", description: "b", schema: z.object({}) },
    );
    const custom = withRepair({
      formatToolError: (_error, call) => `${call.name} is unavailable, try later.`,
    }).middleware;
    const { messages } = await run([{ toolCalls: [{ name: "boom" }] }, { text: "done" }], {
      tools: [boom],
      middleware: [custom],
    });
    expect(toolTexts(messages)[0]).toBe("boom is unavailable, try later.");
    const broken = withRepair({
      formatToolError: () => {
        throw new Error("formatter bug");
      },
    }).middleware;
    const again = await run([{ toolCalls: [{ name: "boom" }] }, { text: "done" }], {
      tools: [boom],
      middleware: [broken],
    });
    expect(toolTexts(again.messages)[0]).toBe('Tool "boom" failed: secret internals');
  });

  it("lets interrupts through: the run pauses and resumes", async () => {
    const ask = tool(async () => `human said ${String(interrupt("approve?"))}`, {
      name: "ask_human",
      description: "a",
      schema: z.object({}),
    });
    const agent = createAgent({
      model: new ScriptedChatModel({ turns: [{ toolCalls: [{ name: "ask_human" }] }, { text: "done" }] }),
      tools: [ask],
      middleware: [new ToolCallRepairMiddleware()],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "interrupt" } };
    const paused = await agent.invoke({ messages: [new HumanMessage("go")] }, config);
    expect(paused.__interrupt__?.[0]?.value).toBe("approve?");
    const { messages } = await agent.invoke(new Command({ resume: "yes" }), config);
    expect(toolTexts(messages as BaseMessage[])).toEqual(["human said yes"]);
  });

  it.each([
    ["a BigInt", () => ({ n: 1n }), /^Tool "produce" ran, but its result could not be turned into text/, "error"],
    [
      "a cycle",
      () => {
        const o: Record<string, unknown> = {};
        o.o = o;
        return o;
      },
      /result is lost/,
      "error",
    ],
    ["undefined", () => undefined, /^\(produce returned no output\)$/, "success"],
    [
      "a 50 KB Buffer",
      () => Buffer.alloc(50_000, 1),
      /^\[50000 bytes of binary data, not shown as text; first bytes in hex: 0101/,
      "success",
    ],
    ["a Uint8Array", () => new Uint8Array(64).fill(2), /^\[64 bytes of binary data/, "success"],
  ])("replaces what LangChain makes of %s with an explicit message", async (_label, value, expected, status) => {
    const produce = tool(async () => value() as never, { name: "produce", description: "p", schema: z.object({}) });
    const { messages } = await run([{ toolCalls: [{ name: "produce" }] }, { text: "done" }], {
      tools: [produce],
      middleware: [new ToolCallRepairMiddleware()],
    });
    const answer = messages.find(ToolMessage.isInstance)!;
    expect(String(answer.content)).toMatch(expected);
    expect(String(answer.content).length).toBeLessThan(400);
    expect(answer.status).toBe(status);
  });
});

describe("ToolCallRepairMiddleware: observe-only", () => {
  it("signals what it would do and changes nothing", async () => {
    const { middleware, signals } = withRepair({ observeOnly: true });
    const produce = tool(async () => ({ n: 1n }) as never, { name: "produce", description: "p", schema: z.object({}) });
    const read = readFileTool();
    const turns: ScriptedTurn[] = [
      { toolCalls: [{ name: "readFile", args: {} }, { name: "produce" }, { name: "read_file", args: { path: 5 } }] },
      cutOff,
      { text: "never" },
    ];
    const model = new ScriptedChatModel({ turns });
    const agent = createAgent({ model, tools: [read.tool, produce], middleware: [middleware] });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(model.callCount).toBe(2); // the cut-off turn still ends the run, as without the middleware
    expect(toolTexts(messages as BaseMessage[])).toEqual([
      "Error: readFile is not a valid tool, try one of [read_file, produce].",
      "[object Object]",
      expect.stringMatching(/Error invoking tool 'read_file'/),
    ]);
    expect(signals.map((s) => `${s.reason}:${String(s.detail?.observeOnly)}`).sort()).toEqual([
      "schema_mismatch:true",
      "unknown_tool:true",
      "unserialisable_result:true",
      "unusable_arguments:true",
    ]);
  });
});
