import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { createDeepAgent, createSummarizationMiddleware, StateBackend } from "deepagents";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { corpusText, type TextClass } from "../../bench/estimateCorpus.js";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { startTiktokenProvider, type TiktokenProvider } from "../guards/overflow/tiktokenProvider.js";

/**
 * deepagents' summarization (a wrapModelCall outside every middleware the user gives) triggers at
 * 85% of the model's `profile.maxInputTokens`, counted at 4 characters a token, and sends what it
 * summarizes to the model in a call of its own, which no guard sees. On text that 4 characters a
 * token undercounts (service logs: half their tokens), that call is over the window. Replacing
 * the middleware by name with one whose `trimTokensToSummarize` is a sixth of the window keeps it
 * inside, whatever the history holds.
 */

const WINDOW = 16_384;
const PAGES = 24;

/** ChatOpenAI for GPT-4o, with the small window of the local server as its profile. */
class SmallWindowChatOpenAI extends ChatOpenAI {
  override get profile() {
    return { ...super.profile, maxInputTokens: WINDOW };
  }
}

/** Pages of about 6,000 characters: under the budget's limit, so they stay whole in the state. */
function fetchPageOf(kind: TextClass) {
  return tool(async ({ n }: { n: number }) => corpusText(kind, 6000, n + 1), {
    name: "fetch_page",
    description: "Fetch one page of the service logs",
    schema: z.object({ n: z.number() }),
  });
}

let server: TiktokenProvider | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function runDeepAgent(replaceSummarization: boolean, pages: TextClass = "hexLog") {
  server = await startTiktokenProvider({ window: WINDOW, pages: PAGES });
  const model = new SmallWindowChatOpenAI({
    model: "gpt-4o",
    apiKey: "sk-offline",
    maxRetries: 0,
    configuration: { baseURL: `${server.url}/v1` },
  });
  const guards = recommendedGuards();
  const backend = (config: { state: unknown }) =>
    new StateBackend(config as ConstructorParameters<typeof StateBackend>[0]);
  const summarization = createSummarizationMiddleware({ backend, trimTokensToSummarize: Math.floor(WINDOW / 6) });
  const agent = createDeepAgent({
    model,
    tools: [fetchPageOf(pages)],
    middleware: replaceSummarization ? [summarization, ...guards.deepAgent] : guards.deepAgent,
  });
  return agent.invoke(
    { messages: [new HumanMessage("Read every page of the logs, then say done.")] },
    { configurable: { thread_id: "summarizer" } },
  );
}

describe("deepagents' summarization call, through createDeepAgent against a provider with a 16,384-token window", () => {
  it("as deepagents builds it, the summarizer's own call is over the window and the run throws", async () => {
    await expect(runDeepAgent(false)).rejects.toThrow(/maximum context length/);
    const summarizer = server!.requests.filter((r) => r.summarizer);
    expect(summarizer.length).toBeGreaterThan(0);
    expect(summarizer.at(-1)!.tokens).toBeGreaterThan(WINDOW);
    // Every request of the agent itself fit: the guard shrank them.
    for (const r of server!.requests.filter((r) => !r.summarizer)) expect(r.tokens).toBeLessThanOrEqual(WINDOW);
  });

  it.each(["hexLog", "cjk", "json"] as const)(
    "replaced by name with trimTokensToSummarize at a sixth of the window, every request fits and the run ends (%s pages)",
    async (pages) => {
      const result = await runDeepAgent(true, pages);
      expect(result.messages.at(-1)!.content).toBe("done");
      expect(result.messages.filter(ToolMessage.isInstance)).toHaveLength(PAGES);
      const summarizer = server!.requests.filter((r) => r.summarizer);
      expect(summarizer.length).toBeGreaterThan(0);
      for (const r of server!.requests) {
        expect(r.refused).toBe(false);
        expect(r.tokens).toBeLessThanOrEqual(WINDOW);
      }
    },
  );
});
