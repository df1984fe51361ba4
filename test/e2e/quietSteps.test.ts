import { describe, expect, it } from "vitest";
import { createAgent, createMiddleware, type AgentMiddleware } from "langchain";
import { tool } from "@langchain/core/tools";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { z } from "zod";
import { recommendedGuards } from "../../src/index.js";
import { loadHasher } from "../../src/observe/hash.js";
import { ScriptedChatModel } from "../../src/testing/index.js";
import { history } from "../helpers/history.js";

const lookup = tool(async ({ key }: { key: string }) => `value of ${key}`, {
  name: "lookup",
  description: "look up",
  schema: z.object({ key: z.string() }),
});

const NODE_HOOKS = ["beforeAgent", "beforeModel", "afterModel", "afterAgent"] as const;
const stacks = () => Object.entries(recommendedGuards()) as Array<[string, AgentMiddleware[]]>;

type ModelWrap = (request: unknown, handler: () => Promise<AIMessage>) => Promise<unknown>;

/**
 * Every node hook costs a graph step and every promise inside a graph pays for
 * AsyncLocalStorage's hooks, and the wrap hooks run on every step: a step where no guard has
 * anything to do must add neither. These pin that.
 */
describe("a step where no guard acts", () => {
  it("meets no node hook of the stack: no middleware declares beforeAgent, beforeModel, afterModel or afterAgent", () => {
    for (const [stack, middlewares] of stacks()) {
      for (const middleware of middlewares) {
        for (const hook of NODE_HOOKS)
          expect(
            (middleware as unknown as Record<string, unknown>)[hook],
            `${stack}: ${middleware.name}.${hook}`,
          ).toBeUndefined();
      }
    }
  });

  it("passes the model's AIMessage back through every wrapModelCall as the same message", async () => {
    await loadHasher();
    const messages = history([{ tool: "lookup", args: { key: "a" } }]);
    const replies = [
      new AIMessage({
        id: "m-calls",
        content: "",
        tool_calls: [{ id: "c2", name: "lookup", args: { key: "b" }, type: "tool_call" }],
      }),
      new AIMessage({ id: "m-text", content: "the value of a is known" }),
    ];
    for (const [stack, middlewares] of stacks()) {
      for (const middleware of middlewares) {
        const wrap = middleware.wrapModelCall as ModelWrap | undefined;
        if (!wrap) continue;
        for (const reply of replies) {
          const request = { messages, state: { messages }, tools: [lookup], runtime: {}, systemPrompt: "" };
          expect(await wrap(request, async () => reply), `${stack}: ${middleware.name}, ${reply.id}`).toBe(reply);
        }
      }
    }
  });

  it("hands the model's AIMessage through the whole stack in a graph as the same message", async () => {
    // Probes outside and inside the stack see what the stack's wrapModelCall chain returns and receives.
    const inner: unknown[] = [];
    const outer: unknown[] = [];
    const probe = (name: string, seen: unknown[]) =>
      createMiddleware({
        name,
        wrapModelCall: async (request, handler) => {
          const reply = await handler(request);
          seen.push(reply);
          return reply;
        },
      });
    const model = new ScriptedChatModel({
      turns: [
        { toolCalls: [{ name: "lookup", args: { key: "a" } }] },
        { toolCalls: [{ name: "lookup", args: { key: "b" } }] },
        { text: "done" },
      ],
    });
    const middleware = [probe("Outer", outer), ...recommendedGuards().agent, probe("Inner", inner)];
    const { messages } = await createAgent({ model, tools: [lookup], middleware }).invoke({
      messages: [new HumanMessage("go")],
    });
    expect(messages.at(-1)?.content).toBe("done");
    expect(inner).toHaveLength(3);
    inner.forEach((reply, i) => expect(outer[i], `model call ${i}`).toBe(reply));
  });

  it("passes an unchanged tool result back through every wrapToolCall as the same message", async () => {
    const messages = history([], { pendingLast: true });
    const toolCall = { id: "c1", name: "lookup", args: { key: "a" }, type: "tool_call" as const };
    const result = new ToolMessage({ content: "value of a", tool_call_id: "c1", name: "lookup" });
    for (const middleware of recommendedGuards().agent) {
      const wrap = middleware.wrapToolCall as
        ((request: unknown, handler: () => Promise<ToolMessage>) => Promise<unknown>) | undefined;
      if (!wrap) continue;
      const request = { toolCall, tool: lookup, state: { messages }, runtime: {} };
      expect(await wrap(request, async () => result), middleware.name).toBe(result);
    }
  });
});
