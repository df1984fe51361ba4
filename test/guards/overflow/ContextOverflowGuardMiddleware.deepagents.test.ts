import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createDeepAgent } from "deepagents";
import { createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RequestMeter } from "../../../src/guards/overflow/estimate.js";
import { readContextRecord } from "../../../src/guards/overflow/record.js";
import { contentText } from "../../../src/observe/content.js";
import { recommendedGuards } from "../../../src/stack/recommendedGuards.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";

/**
 * Through createDeepAgent with the recommended deep-agent stack: the guard offloads into the
 * agent's own files (AgentFilesOffloadStore), so the agent reads a left-out result back with
 * deepagents' read_file. deepagents' summarization wraps the model call outside the guard.
 */

function page(n: number): string {
  return Array.from({ length: 450 }, (_, i) => `page ${n} row ${i}: total=${(n * 101 + i * 13) % 9973}`).join("\n");
}

const fetchPage = tool(async ({ n }: { n: number }) => page(n), {
  name: "fetch_page",
  description: "Fetch one page",
  schema: z.object({ n: z.number() }),
});

const WINDOW = 16_000;
const RESERVE = 1000;

/** What leaves the agent for the model, measured just inside the guard: system prompt, tool schemas, messages. */
function requestSpy(sizes: number[], requests: BaseMessage[][]) {
  const meter = new RequestMeter();
  return createMiddleware({
    name: "RequestSpy",
    wrapModelCall: (request, handler) => {
      sizes.push(meter.fixed(request.systemMessage, request.tools) + meter.messages(request.messages));
      requests.push(request.messages);
      return handler(request);
    },
  });
}

/** The file the latest left-out page 0 names, as a model would read it from the request. */
function page0File(messages: readonly BaseMessage[]): string {
  for (const m of messages) {
    const text = contentText(m.content);
    if (!text.includes("fetch_page")) continue;
    const found = /read_file with file_path "([^"]+)"/.exec(text);
    if (found) return found[1]!;
  }
  throw new Error("no read_file hint in the request");
}

describe("ContextOverflowGuardMiddleware through createDeepAgent", () => {
  it("keeps every request under the window and the agent reads a left-out result back from its files", async () => {
    const sizes: number[] = [];
    const requests: BaseMessage[][] = [];
    const guards = recommendedGuards({ contextOverflow: { maxInputTokens: WINDOW, reserveTokens: RESERVE } });
    const turns: ScriptedTurn[] = [
      ...Array.from({ length: 16 }, (_, n) => ({ toolCalls: [{ name: "fetch_page", args: { n } }] })),
      (messages) => ({
        toolCalls: [{ name: "read_file", args: { file_path: page0File(messages), offset: 0, limit: 3 } }],
      }),
      { text: "done" },
    ];
    const model = new ScriptedChatModel({ turns });
    const agent = createDeepAgent({
      model,
      tools: [fetchPage],
      middleware: [...guards.deepAgent, requestSpy(sizes, requests)],
    });
    const { messages } = (await agent.invoke(
      { messages: [new HumanMessage("read sixteen pages")] },
      { recursionLimit: 500 },
    )) as { messages: BaseMessage[] };

    expect(messages.at(-1)!.content).toBe("done");
    expect(sizes.length).toBe(model.callCount);
    for (const [i, size] of sizes.entries()) {
      expect(size, `request ${i}`).toBeLessThanOrEqual(WINDOW - RESERVE);
      assertToolCallPairing(requests[i]!);
    }
    expect(messages.some((m) => readContextRecord(m) !== undefined)).toBe(true);
    const read = messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.name === "read_file");
    expect(read).toHaveLength(1);
    expect(contentText(read[0]!.content)).toContain("page 0 row 0: total=0");
    assertToolCallPairing(messages);
  });
});
