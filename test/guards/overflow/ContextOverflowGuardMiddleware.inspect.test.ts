import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage, mapChatMessagesToStoredMessages } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { runCli } from "../../../src/cli/cli.js";
import { ContextOverflowGuardMiddleware } from "../../../src/guards/overflow/ContextOverflowGuardMiddleware.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";
import { ScriptedChatModel } from "../../../src/testing/index.js";
import { captureIo } from "../../cli/io.js";

const dir = mkdtempSync(join(tmpdir(), "hk-overflow-inspect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// About 720 tokens a page: under `largeResultTokens`, so a shrink replaces pages by notices.
const fetchPage = tool(async ({ n }: { n: number }) => `page ${n}\n${"page text ".repeat(360)}`, {
  name: "fetch_page",
  description: "Fetch one page",
  schema: z.object({ n: z.number() }),
});

describe("harness-kit inspect on a thread the context-overflow guard shrank", () => {
  it("lists each shrunk request with what it left out and the keys it is kept under, in text and JSON", async () => {
    const store = new MemoryOffloadStore();
    const model = new ScriptedChatModel({
      turns: [
        ...Array.from({ length: 10 }, (_, n) => ({ toolCalls: [{ name: "fetch_page", args: { n } }] })),
        { text: "done" },
      ],
    });
    const agent = createAgent({
      model,
      tools: [fetchPage],
      middleware: [new ContextOverflowGuardMiddleware({ maxInputTokens: 6000, reserveTokens: 500, store })],
    });
    const { messages } = await agent.invoke(
      { messages: [new HumanMessage("read ten pages")] },
      { configurable: { thread_id: "saved" } },
    );
    const file = join(dir, "thread.json");
    writeFileSync(file, JSON.stringify(mapChatMessagesToStoredMessages(messages)));

    const text = captureIo();
    expect(await runCli(["inspect", file], text)).toBe(0);
    expect(text.stdout()).toMatch(/\d+ requests? shrunk by ContextOverflowGuardMiddleware:/);
    expect(text.stdout()).toMatch(
      /answer at message \d+: about [\d,]+ → [\d,]+ tokens \(window 6,000\); \d+ replaced by a notice; kept under fetch_page-/,
    );

    const json = captureIo();
    expect(await runCli(["inspect", file, "--json"], json)).toBe(0);
    const report = JSON.parse(json.stdout()) as { contextShrinks: Array<{ keys: string[]; sentTokens: number }> };
    expect(report.contextShrinks.length).toBeGreaterThanOrEqual(3);
    for (const shrink of report.contextShrinks) {
      expect(shrink.sentTokens).toBeLessThanOrEqual(5500);
      for (const key of shrink.keys)
        expect(await store.get(key, { toolName: "", toolCallId: "", threadId: "saved", state: {} })).toBeDefined();
    }
  });
});
