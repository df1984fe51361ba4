import { describe, expect, it } from "vitest";
import { createAgent, summarizationMiddleware } from "langchain";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { InMemoryStore } from "@langchain/langgraph";
import { z } from "zod";
import { ContextOverflowGuardMiddleware, LangGraphOffloadStore } from "../../src/index.js";
import { ScriptedChatModel, assertToolCallPairing } from "../../src/testing/index.js";

/** `profile`: what a scripted model declares about itself, so `fraction` limits work without a provider. */

const WINDOW = 2_000;
const fetchPage = tool(async ({ page }) => `page ${page}: ${"lorem ipsum ".repeat(15)}`, {
  name: "fetch_page",
  description: "Reads one page",
  schema: z.object({ page: z.number() }),
});
const pageTurns = (n: number) =>
  Array.from({ length: n }, (_, page) => ({ toolCalls: [{ name: "fetch_page", args: { page } }] }));

/** The README's overflow-with-summarization example, each model string played by a scripted model. */
function readmeOverflowAgent(profile?: { maxInputTokens: number }) {
  const store = new InMemoryStore();
  const model = new ScriptedChatModel({ turns: [...pageTurns(20), { text: "done" }], ...(profile ? { profile } : {}) });
  const summarizer = new ScriptedChatModel({
    turns: pageTurns(20).map(() => ({ text: "earlier pages read, nothing found" })),
    ...(profile ? { profile } : {}),
  });
  const agent = createAgent({
    model,
    tools: [fetchPage],
    store,
    middleware: [
      summarizationMiddleware({ model: summarizer, trigger: { fraction: 0.7 }, keep: { messages: 20 } }),
      new ContextOverflowGuardMiddleware({ store: new LangGraphOffloadStore({ store }) }),
    ],
  });
  return { agent, model, summarizer };
}

describe("ScriptedChatModel's profile", () => {
  it("is what the options give, {} without one, and bound models share it", () => {
    const model = new ScriptedChatModel({ turns: [], profile: { maxInputTokens: WINDOW, toolCalling: true } });
    expect(model.profile).toEqual({ maxInputTokens: WINDOW, toolCalling: true });
    expect(model.bindTools([fetchPage]).profile).toEqual({ maxInputTokens: WINDOW, toolCalling: true });
    expect(new ScriptedChatModel({ turns: [] }).profile).toEqual({});
  });

  it("lets the README's summarization example with trigger: { fraction: 0.7 } run and summarize", async () => {
    const { agent, model, summarizer } = readmeOverflowAgent({ maxInputTokens: WINDOW });
    const { messages } = await agent.invoke(
      { messages: [new HumanMessage("find the page about pricing")] },
      { recursionLimit: 100 },
    );
    assertToolCallPairing(messages);
    // Summarized once the history passed 70% of the declared window: a summary first, then fewer
    // messages than the 42 of the whole run (the question, 20 calls with their results, "done").
    expect(summarizer.callCount).toBeGreaterThan(0);
    expect(String(messages[0]?.content)).toContain("earlier pages read, nothing found");
    expect(messages.length).toBeLessThan(1 + 2 * 20 + 1);
    expect(model.callCount).toBe(21);
    expect(messages.at(-1)?.content).toBe("done");
  });

  it("without one, LangChain refuses the fraction (the error the README example met)", async () => {
    const { agent } = readmeOverflowAgent();
    await expect(agent.invoke({ messages: [new HumanMessage("go")] })).rejects.toThrow(
      /Model profile information is required/,
    );
  });
});
