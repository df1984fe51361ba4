import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidOptionsError } from "../../../src/core/errors.js";
import type { Signal } from "../../../src/core/signals.js";
import { REVIEW_KEY } from "../../../src/guards/repair/reviewTurn.js";
import { ToolCallRepairMiddleware } from "../../../src/guards/repair/ToolCallRepairMiddleware.js";

const tools = [{ name: "ls", schema: z.object({ path: z.string() }) }];

describe("ToolCallRepairMiddleware", () => {
  it("is branded as a LangChain middleware and validates its options", () => {
    const middleware = new ToolCallRepairMiddleware();
    expect((middleware as unknown as Record<symbol, unknown>)[Symbol.for("AgentMiddleware")]).toBe(true);
    // Wrap hooks only: a node hook would cost a graph step (issue 11).
    expect(typeof middleware.wrapModelCall).toBe("function");
    expect(typeof middleware.wrapToolCall).toBe("function");
    expect((middleware as unknown as Record<string, unknown>).afterModel).toBeUndefined();
    expect(() => new ToolCallRepairMiddleware({ stopAt: 0 })).toThrow(InvalidOptionsError);
    expect(() => new ToolCallRepairMiddleware({ exitBehavior: "explode" as never })).toThrow(InvalidOptionsError);
  });

  it("returns the model's message untouched when there is nothing to review", async () => {
    const middleware = new ToolCallRepairMiddleware();
    const message = new AIMessage({
      id: "m",
      content: "",
      tool_calls: [{ id: "a", name: "ls", args: { path: "." }, type: "tool_call" }],
    });
    expect(await middleware.wrapModelCall({ tools }, () => message)).toBe(message);
    const text = new AIMessage("just text");
    expect(await middleware.wrapModelCall({ tools }, () => text)).toBe(text);
  });

  it("keeps the message's content, id and metadata when it rewrites the calls", async () => {
    const middleware = new ToolCallRepairMiddleware();
    const message = new AIMessage({
      id: "m",
      content: [{ type: "text", text: "listing" }],
      usage_metadata: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
      response_metadata: { model_provider: "x" },
      invalid_tool_calls: [{ type: "invalid_tool_call", id: "a", name: "ls", args: "{path: '.'}", error: "bad" }],
    });
    const reviewed = (await middleware.wrapModelCall({ tools }, () => message)) as AIMessage;
    expect(AIMessage.isInstance(reviewed)).toBe(true);
    expect(reviewed).not.toBe(message);
    expect(reviewed).toMatchObject({
      id: "m",
      content: message.content,
      usage_metadata: message.usage_metadata,
      invalid_tool_calls: [],
    });
    expect(reviewed.tool_calls).toEqual([{ id: "a", name: "ls", args: { path: "." }, type: "tool_call" }]);
    expect(reviewed.response_metadata).toMatchObject({
      model_provider: "x",
      [REVIEW_KEY]: [expect.objectContaining({ verdict: "repaired" })],
    });
  });

  it("lets the turn through with a warn signal when its own review fails", async () => {
    const signals: Signal[] = [];
    const middleware = new ToolCallRepairMiddleware({ onSignal: (s) => signals.push(s) });
    const hostile = {
      name: "ls",
      get schema(): never {
        throw new Error("schema getter exploded");
      },
    };
    const message = new AIMessage({
      id: "m",
      content: "",
      invalid_tool_calls: [{ type: "invalid_tool_call", id: "a", name: "ls", args: "{path: '.'}", error: "bad" }],
    });
    expect(await middleware.wrapModelCall({ tools: [hostile] }, () => message)).toBe(message);
    expect(signals).toEqual([expect.objectContaining({ action: "warn", reason: "guard_failed" })]);
  });
});
