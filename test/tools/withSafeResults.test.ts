import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidOptionsError } from "../../src/core/errors.js";
import { ScriptedChatModel } from "../../src/testing/index.js";
import { withSafeResults } from "../../src/tools/withSafeResults.js";

const cyclic = () => {
  const node: Record<string, unknown> = { id: 1 };
  node.self = node;
  return node;
};

const VALUES: Record<string, () => unknown> = {
  bigint: () => ({ size: 10n }),
  cycle: cyclic,
  map: () => new Map([["a", 1]]),
  set: () => new Set(["x"]),
  buffer: () => Buffer.alloc(100_000, 7),
  typed: () => new Uint16Array([1, 2, 3]),
  undefined: () => undefined,
  function: () => () => 1,
};

const raw = tool(async ({ kind }: { kind: string }) => VALUES[kind]!() as never, {
  name: "produce",
  description: "returns an awkward value",
  schema: z.object({ kind: z.string() }),
});

async function resultOf(t: typeof raw | ReturnType<typeof withSafeResults>, kind: string): Promise<ToolMessage> {
  const model = new ScriptedChatModel({
    turns: [{ toolCalls: [{ name: "produce", args: { kind } }] }, { text: "done" }],
  });
  const agent = createAgent({ model, tools: [t] });
  const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
  return (messages as BaseMessage[]).find(ToolMessage.isInstance)!;
}

describe("withSafeResults in a createAgent graph", () => {
  it.each([
    ["bigint", "[object Object]", '{"size":10}'],
    ["cycle", "[object Object]", '{"id":1,"self":"[circular]"}'],
    ["map", "{}", '{"a":1}'],
    ["set", "{}", '["x"]'],
    ["typed", '{"0":1,"1":2,"2":3}', "[6 bytes of binary data, not shown as text; first bytes in hex: 010002000300]"],
    ["undefined", "", "(produce returned no output)"],
    ["function", "", "[function anonymous]"],
  ])("%s: LangChain alone gives %j, wrapped gives %j", async (kind, unwrapped, wrapped) => {
    expect((await resultOf(raw, kind)).content).toBe(unwrapped);
    expect((await resultOf(withSafeResults(raw), kind)).content).toBe(wrapped);
  });

  it("a 100 KB Buffer: one number per byte without, a bounded description with", async () => {
    const plain = String((await resultOf(raw, "buffer")).content);
    expect(plain.length).toBeGreaterThan(200_000);
    const safe = String((await resultOf(withSafeResults(raw), "buffer")).content);
    expect(safe).toMatch(/^\[100000 bytes of binary data/);
    expect(safe.length).toBeLessThan(200);
  });

  it("keeps name, description, schema and validation of the wrapped tool", async () => {
    const safe = withSafeResults(raw);
    expect(safe.name).toBe("produce");
    expect(safe.description).toBe(raw.description);
    expect(safe.schema).toBe(raw.schema);
    await expect(safe.invoke({ kind: 5 } as never)).rejects.toThrow(/did not match expected schema/);
  });

  it("passes strings, content blocks and Commands through unchanged", async () => {
    const command = new Command({ update: { messages: [] } });
    const pass = tool(
      async ({ kind }: { kind: string }) =>
        (kind === "text" ? "plain" : kind === "blocks" ? [{ type: "text", text: "b" }] : command) as never,
      {
        name: "pass",
        description: "d",
        schema: z.object({ kind: z.string() }),
      },
    );
    const safe = withSafeResults(pass);
    expect(await safe.invoke({ kind: "text" })).toBe("plain");
    expect(await safe.invoke({ kind: "blocks" })).toEqual([{ type: "text", text: "b" }]);
    expect(await safe.invoke({ kind: "command" })).toBe(command);
  });

  it("renders only the content of a content_and_artifact tool", async () => {
    const artifact = { big: 1n };
    const both = tool(async () => [{ n: 1n }, artifact] as never, {
      name: "both",
      description: "d",
      schema: z.object({}),
      responseFormat: "content_and_artifact",
    });
    const message = (await withSafeResults(both).invoke({
      id: "c1",
      name: "both",
      args: {},
      type: "tool_call",
    })) as ToolMessage;
    expect(message.content).toBe('{"n":1}');
    expect(message.artifact).toBe(artifact);
  });

  it("refuses something that is not a LangChain tool", () => {
    expect(() => withSafeResults({ name: "x" } as never)).toThrow(InvalidOptionsError);
  });
});
