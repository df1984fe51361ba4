import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { createDeepAgent } from "deepagents";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command } from "@langchain/langgraph";
import { z } from "zod";
import { recommendedGuards, ToolCallRepairMiddleware, type Signal } from "../../../src/index.js";
import { ScriptedChatModel } from "../../../src/testing/index.js";

/** empty_result through a real createAgent graph: news only from a tool that has said something before. */

const think = tool(async () => "", {
  name: "think",
  description: "Think out loud; returns nothing",
  schema: z.object({ thought: z.string() }),
});
const searchAnswers = (answers: string[]) => {
  let n = 0;
  return tool(async () => answers[n++] ?? "", {
    name: "search",
    description: "Search",
    schema: z.object({ q: z.string() }),
  });
};
/** A tool that answers inside a Command (as a tool that also updates state does), with nothing in its answer. */
const saveAnswers = (answers: Array<string | []>) => {
  let n = 0;
  return tool(
    async (_input: { key: string }, runtime) =>
      new Command({
        update: {
          messages: [
            new ToolMessage({ content: answers[n++] ?? "", tool_call_id: runtime.toolCall?.id ?? "", name: "save" }),
          ],
        },
      }),
    { name: "save", description: "Saves a key", schema: z.object({ key: z.string() }) },
  );
};
const chart = tool(async () => ["", { png: "..." }], {
  name: "chart",
  description: "Draws a chart",
  schema: z.object({}),
  responseFormat: "content_and_artifact",
});

/** The guard alone, or the whole stack in `createAgent` or `createDeepAgent`; at LangGraph's default recursionLimit. */
type Setting = "alone" | "createAgent" | "createDeepAgent";

async function run(
  tools: Parameters<typeof createAgent>[0]["tools"],
  calls: Array<{ name: string; args: Record<string, unknown>; id?: string }>,
  setting: Setting = "alone",
) {
  const signals: Signal[] = [];
  const onSignal = (s: Signal) => signals.push(s);
  const model = new ScriptedChatModel({ turns: [...calls.map((call) => ({ toolCalls: [call] })), { text: "done" }] });
  const guards = recommendedGuards({ onSignal });
  const agent =
    setting === "alone"
      ? createAgent({ model, tools, middleware: [new ToolCallRepairMiddleware({ onSignal })] })
      : setting === "createAgent"
        ? createAgent({ model, tools, middleware: guards.agent })
        : createDeepAgent({ model, tools, middleware: guards.deepAgent });
  const { messages } = await (agent as { invoke: (input: object) => Promise<{ messages: BaseMessage[] }> }).invoke({
    messages: [new HumanMessage("go")],
  });
  const results = (messages as BaseMessage[]).filter(ToolMessage.isInstance).map((m) => String(m.content));
  return { empties: signals.filter((s) => s.code === "empty_result"), results };
}

describe("empty_result in a createAgent graph", () => {
  it("a think tool that always answers empty gets no warn; its answers say so in words", async () => {
    const { empties, results } = await run(
      [think],
      [1, 2, 3].map((i) => ({ name: "think", args: { thought: `step ${i}` } })),
    );
    expect(empties).toEqual([]);
    expect(results).toEqual(Array(3).fill("(think returned no output)"));
  });

  it("a tool that answered with something before and then goes silent is warned about, every time", async () => {
    const { empties, results } = await run(
      [searchAnswers(["", "page A", "", ""])],
      ["a", "b", "c", "d"].map((q) => ({ name: "search", args: { q } })),
    );
    expect(results).toEqual([
      "(search returned no output)",
      "page A",
      "(search returned no output)",
      "(search returned no output)",
    ]);
    expect(empties.map((s) => [s.tool, s.action])).toEqual([
      ["search", "warn"],
      ["search", "warn"],
    ]);
  });

  it("one tool's answers say nothing about another's silence", async () => {
    const { empties } = await run(
      [think, searchAnswers(["page A"])],
      [
        { name: "search", args: { q: "a" } },
        { name: "think", args: { thought: "x" } },
      ],
    );
    expect(empties).toEqual([]);
  });

  it("an empty text beside an artifact is an answer", async () => {
    const { empties, results } = await run(
      [chart, searchAnswers([])],
      [
        { name: "chart", args: {} },
        { name: "chart", args: {} },
      ],
    );
    expect(empties).toEqual([]);
    expect(results).toEqual(["", ""]);
  });

  it("a tool that found nothing answers an empty list: the model reads [], as withSafeResults writes it", async () => {
    // LangChain takes an empty array for an empty list of content blocks: no text at all, which
    // OpenAI's Chat Completions API refuses as a message's content.
    const findOrders = tool(async () => [] as unknown as string, {
      name: "find_orders",
      description: "Orders matching a query",
      schema: z.object({ q: z.string() }),
    });
    const { empties, results } = await run([findOrders], [{ name: "find_orders", args: { q: "late" } }]);
    expect(results).toEqual(["[]"]);
    expect(empties).toEqual([]);
  });

  it.each<Setting>(["alone", "createAgent", "createDeepAgent"])(
    "an answer inside a tool's Command is made readable as a plain one is, and warned of when it is news (%s, ids reused)",
    async (setting) => {
      const { empties, results } = await run(
        [saveAnswers(["", "saved a", "", []])],
        ["a", "b", "c", "d"].map((key) => ({ name: "save", args: { key }, id: "call_1" })),
        setting,
      );
      expect(results).toEqual(["(save returned no output)", "saved a", "(save returned no output)", "[]"]);
      expect(empties.map((s) => [s.tool, s.action])).toEqual([["save", "warn"]]);
    },
  );
});
