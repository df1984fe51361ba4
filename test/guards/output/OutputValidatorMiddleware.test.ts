import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, GraphInterrupt } from "@langchain/langgraph";
import { z } from "zod";
import {
  OutputValidatorMiddleware,
  type OutputValidatorOptions,
} from "../../../src/guards/output/OutputValidatorMiddleware.js";
import type { Signal } from "../../../src/core/signals.js";
import { loadHasher } from "../../../src/observe/hash.js";
import { resultFingerprint } from "../../../src/observe/resultFingerprint.js";
import { ScriptedChatModel, assertToolCallPairing } from "../../../src/testing/index.js";

const schema = z.object({ plan: z.enum(["free", "pro"]) });
const toolCall = { id: "call-1", name: "get_plan", args: { user: 1 } };

function middleware(options: OutputValidatorOptions = {}) {
  const signals: Signal[] = [];
  const validator = new OutputValidatorMiddleware({
    tools: { get_plan: { schema } },
    ...options,
    onSignal: (s) => signals.push(s),
  });
  const call = (handler: () => unknown, messages: unknown[] = []) =>
    validator.wrapToolCall({ toolCall, tool: undefined, state: { messages }, runtime: {} } as never, handler as never);
  return { validator, signals, call };
}

function result(
  content: ToolMessage["content"],
  extra: Partial<ConstructorParameters<typeof ToolMessage>[0] & object> = {},
) {
  return new ToolMessage({ content, tool_call_id: toolCall.id, name: toolCall.name, ...extra });
}

describe("OutputValidatorMiddleware.wrapToolCall", () => {
  it("keeps the result's metadata when it replaces invalid content", async () => {
    const { call } = middleware();
    const original = result('{"plan":"gold"}', {
      id: "msg-9",
      artifact: { raw: true },
      additional_kwargs: { trace: "t" },
      response_metadata: { http: 200 },
    });
    const replaced = (await call(() => original)) as ToolMessage;
    expect(replaced).not.toBe(original);
    expect(replaced).toMatchObject({
      id: "msg-9",
      tool_call_id: "call-1",
      name: "get_plan",
      status: "error",
      artifact: { raw: true },
      additional_kwargs: { trace: "t" },
    });
    expect(replaced.response_metadata).toMatchObject({
      http: 200,
      harness_kit: {
        guard: "OutputValidatorMiddleware",
        action: "directive",
        outcome: "invalid_output",
        errorClass: "schema_invalid",
        mode: "fail_closed",
      },
    });
    // What was dropped stays known to the loop guards: the original's fingerprint and size.
    const hash = await loadHasher();
    expect((replaced.response_metadata.harness_kit as { original: unknown }).original).toEqual({
      fingerprint: resultFingerprint('{"plan":"gold"}', hash),
      size: 15,
    });
  });

  it("returns a valid result as the very same object", async () => {
    const { call } = middleware();
    const original = result('{"plan":"pro"}');
    expect(await call(() => original)).toBe(original);
  });

  it("validates the ToolMessage inside a Command and keeps the Command's other updates", async () => {
    const { call } = middleware();
    const command = new Command({
      update: { messages: [result("<html><body>down</body></html>")], todos: ["a"] },
      goto: "model",
    });
    const out = (await call(() => command)) as Command;
    expect(out).toBeInstanceOf(Command);
    expect(out.goto).toEqual(["model"]);
    const update = out.update as { messages: ToolMessage[]; todos: string[] };
    expect(update.todos).toEqual(["a"]);
    expect(update.messages[0]!.content).toMatch(/^ToolOutputInvalid: html_instead_of_json/);
  });

  it("passes a Command without this call's ToolMessage through untouched", async () => {
    const { call, signals } = middleware();
    const command = new Command({ update: { todos: [] } });
    expect(await call(() => command)).toBe(command);
    expect(signals).toEqual([]);
  });

  it("turns a tool exception into an error message, but lets interrupts through", async () => {
    const { call } = middleware();
    const answer = (await call(() => {
      throw new Error("ECONNRESET");
    })) as ToolMessage;
    expect(answer.status).toBe("error");
    expect(String(answer.content)).toContain("ECONNRESET");
    await expect(
      call(() => {
        throw new GraphInterrupt([{ value: "approve?" }]);
      }),
    ).rejects.toBeInstanceOf(GraphInterrupt);
  });

  it("leaves answers written by other guards alone", async () => {
    const { call, signals } = middleware({ unspecifiedTools: "require-spec" });
    const refused = result("Not run: loop", {
      status: "error",
      response_metadata: { harness_kit: { guard: "LoopGuardMiddleware", action: "directive" } },
    });
    expect(await call(() => refused)).toBe(refused);
    expect(signals).toEqual([]);
  });

  it("survives a cache that throws", async () => {
    const broken = {
      get: () => Promise.reject(new Error("redis down")),
      set: () => Promise.reject(new Error("redis down")),
    };
    const { call } = middleware({ tools: { get_plan: { schema, onInvalid: "degrade" } }, lastKnownGood: broken });
    expect(((await call(() => result('{"plan":"pro"}'))) as ToolMessage).content).toBe('{"plan":"pro"}');
    expect(String(((await call(() => result("{"))) as ToolMessage).content)).toMatch(/unavailable/);
  });

  it("wraps each text block of a block result and keeps the others", async () => {
    const { call } = middleware({ tools: {}, envelope: true });
    const image = { type: "image", mimeType: "image/png", data: "AAAA" };
    const out = (await call(() => result([{ type: "text", text: "caption" }, image] as never))) as ToolMessage;
    const blocks = out.content as Array<{ type: string; text?: string }>;
    expect(blocks[0]!.text).toMatch(/<untrusted_tool_output tool="get_plan">\ncaption\n<\/untrusted_tool_output>$/);
    expect(blocks[1]).toEqual(image);
  });

  it("refuses a write call from the history alone, without running it", async () => {
    const { call, signals } = middleware({ writeTools: ["get_plan"] });
    const degraded = new ToolMessage({
      content: "x",
      tool_call_id: "earlier",
      name: "read_db",
      status: "error",
      response_metadata: {
        harness_kit: {
          guard: "OutputValidatorMiddleware",
          action: "directive",
          reason: "r",
          outcome: "invalid_output",
          mode: "degrade",
        },
      },
    });
    let ran = false;
    const history = [
      new HumanMessage("go"),
      new AIMessage({ content: "", tool_calls: [{ id: "earlier", name: "read_db", args: {} }] }),
      degraded,
    ];
    const answer = (await call(() => {
      ran = true;
      return result('{"plan":"pro"}');
    }, history)) as ToolMessage;
    expect(ran).toBe(false);
    expect(answer.response_metadata.harness_kit).toMatchObject({
      outcome: "blocked",
      reason: "safe_mode: read_db returned invalid output in this run",
    });
    expect(signals.map((s) => s.reason)).toEqual(["safe_mode: read_db returned invalid output in this run"]);
  });
});

describe("OutputValidatorMiddleware with a tool that returns a Command", () => {
  it("validates the ToolMessage the Command carries, in a real graph", async () => {
    const commandTool = tool(
      async (_args, config) =>
        new Command({
          update: {
            messages: [
              new ToolMessage({ content: '{"plan":"platinum"}', tool_call_id: config.toolCall!.id!, name: "get_plan" }),
            ],
          },
        }),
      { name: "get_plan", description: "Plan.", schema: z.object({}) },
    );
    const model = new ScriptedChatModel({ turns: [{ toolCalls: [{ name: "get_plan", args: {} }] }, { text: "done" }] });
    const agent = createAgent({
      model,
      tools: [commandTool],
      middleware: [new OutputValidatorMiddleware({ tools: { get_plan: { schema } } })],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
    assertToolCallPairing(messages);
    expect(String(messages[2]!.content)).toMatch(
      /^ToolOutputInvalid: schema_invalid: plan: expected one of "free"\|"pro"/,
    );
  });
});
