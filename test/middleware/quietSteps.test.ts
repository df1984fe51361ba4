import { describe, expect, it } from "vitest";
import { tool } from "@langchain/core/tools";
import { ToolMessage } from "@langchain/core/messages";
import { z } from "zod";
import { loadHasher, recommendedGuards } from "../../src/index.js";
import { history } from "../helpers/history.js";

type Hook = ((state: unknown) => unknown) | { hook: (state: unknown) => unknown } | undefined;
const hookOf = (hook: Hook) => (typeof hook === "function" ? hook : hook?.hook);

const lookup = tool(async ({ key }: { key: string }) => `value of ${key}`, { name: "lookup", description: "look up", schema: z.object({ key: z.string() }) });

/**
 * Inside a graph every promise pays for AsyncLocalStorage's hooks, and our hooks run on every
 * step: a step where no guard has anything to do must not create one. These pin that.
 */
describe("a step where no guard acts", () => {
  it("costs the afterModel and beforeModel hooks of the stack no promise", async () => {
    await loadHasher();
    const pending = history([{ tool: "lookup", args: { key: "a" } }, { tool: "lookup", args: { key: "b" } }], { pendingLast: true });
    const answered = history([{ tool: "lookup", args: { key: "a" } }]);
    for (const middleware of recommendedGuards().agent as unknown as Record<string, Hook>[]) {
      const afterModel = hookOf(middleware.afterModel);
      if (afterModel) expect(afterModel({ messages: pending }), String(middleware.name)).toBeUndefined();
      const beforeModel = hookOf(middleware.beforeModel);
      if (beforeModel) expect(beforeModel({ messages: answered }), String(middleware.name)).toBeUndefined();
    }
  });

  it("passes an unchanged tool result back through every wrapToolCall as the same message", async () => {
    const messages = history([], { pendingLast: true });
    const toolCall = { id: "c1", name: "lookup", args: { key: "a" }, type: "tool_call" as const };
    const result = new ToolMessage({ content: "value of a", tool_call_id: "c1", name: "lookup" });
    for (const middleware of recommendedGuards().agent) {
      const wrap = middleware.wrapToolCall as ((request: unknown, handler: () => Promise<ToolMessage>) => Promise<unknown>) | undefined;
      if (!wrap) continue;
      const request = { toolCall, tool: lookup, state: { messages }, runtime: {} };
      expect(await wrap(request, async () => result), middleware.name).toBe(result);
    }
  });
});
