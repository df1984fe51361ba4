import { ChatAnthropic } from "@langchain/anthropic";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Signal } from "../../../src/core/signals.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";
import { recommendedGuards } from "../../../src/stack/recommendedGuards.js";
import { contentText } from "../../../src/observe/content.js";
import { findToolCallPairingViolation } from "../../../src/testing/assertToolCallPairing.js";
import { startFakeProvider, type FakeProvider, type Route, type ScriptStep } from "./providerServer.js";

/**
 * Issue 31, item 4, through recommendedGuards and the real ChatOpenAI and ChatAnthropic clients
 * against the local server that counts with the providers' tokenizers: twenty sources fetched one
 * per turn, then the model reads the budget's stored copy of one of them at the offset its
 * notice gives, a page of about 20,000 characters (the read tool's own cap) that holds the fact it
 * needs. That page is what the model just asked for: the next request must carry it whole.
 */

const FACT = "The access code for source 7 is ZEBRA-4417.";

function source(n: number): string {
  const lines = Array.from(
    { length: 520 },
    (_, i) => `Source ${n}, paragraph ${i}: the field team logged routine readings and no incident.`,
  );
  if (n === 7) lines.splice(300, 0, FACT);
  return lines.join("\n");
}

const fetchSource = tool(async ({ n }: { n: number }) => source(n), {
  name: "fetch_source",
  description: "Fetch one source document",
  schema: z.object({ n: z.number() }),
});

/** The model: fetch 20 sources, read source 7's stored copy at the offset its notice gave, then answer with the fact, or follow the notes it is given. */
function readingModel() {
  const notices = new Map<number, { key: string; offset: number }>();
  let reads = 0;
  return {
    reads: () => reads,
    script: ({ n, texts }: { n: number; texts: string[] }): ScriptStep => {
      const last = texts.at(-1) ?? "";
      const notice = /stored under the key "([^"]+)"[\s\S]*The omitted part starts at character (\d+)/.exec(last);
      if (n >= 1 && n <= 20 && notice) notices.set(n - 1, { key: notice[1]!, offset: Number(notice[2]) });
      if (n < 20) return { toolCalls: [{ name: "fetch_source", args: { n } }] };
      if (last.includes(FACT)) return { text: `found: ${FACT}` };
      // Follow what the request says: the note in place of what it left out names a key and an offset.
      const note =
        n === 20
          ? notices.get(7)
          : (() => {
              const m = /key "([^"]+)" and offset (\d+)/.exec(last);
              return m ? { key: m[1]!, offset: Number(m[2]) } : undefined;
            })();
      if (!note || reads >= 6) return { text: "gave up" };
      reads++;
      return { toolCalls: [{ name: "read_stored_result", args: { key: note.key, offset: note.offset } }] };
    },
  };
}

let server: FakeProvider | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each<Route>(["openai", "anthropic"])(
  "the latest turn's read back reaches the model whole, with %s's tokenizer",
  (route) => {
    it("reads the fact on the first read back: nothing of the fresh page cut, nothing stored again, no refusal, no stop", async () => {
      const model = readingModel();
      server = await startFakeProvider({ window: 16_384, script: model.script });
      const llm =
        route === "openai"
          ? new ChatOpenAI({
              model: "gpt-4o",
              apiKey: "sk-offline",
              maxRetries: 0,
              maxTokens: 4096,
              configuration: { baseURL: `${server.url}/v1` },
            })
          : new ChatAnthropic({
              model: "claude-sonnet-4-5",
              apiKey: "offline",
              maxRetries: 0,
              anthropicApiUrl: server.url,
              maxTokens: 4096,
            });
      const store = new MemoryOffloadStore();
      const signals: Signal[] = [];
      const guards = recommendedGuards({
        offloadStore: store,
        contextOverflow: { maxInputTokens: 16_384 },
        onSignal: (s) => signals.push(s),
      });
      const agent = createAgent({ model: llm, tools: [fetchSource], middleware: guards.agent });
      const { messages } = await agent.invoke(
        { messages: [new HumanMessage("find the access code in the sources")] },
        { recursionLimit: 200, configurable: { thread_id: `rb-${route}` } },
      );

      expect(messages.at(-1)!.content).toBe(`found: ${FACT}`);
      expect(model.reads()).toBe(1);
      expect(server.requests.filter((r) => r.refused)).toHaveLength(0);
      expect(signals.filter((s) => s.action === "stop")).toEqual([]);
      // The page the model asked for went out whole: the request after the read carries it as the tool answered it.
      const readBack = messages.filter(ToolMessage.isInstance).find((m) => m.name === "read_stored_result")!;
      const page = contentText(readBack.content);
      expect(page.length).toBeGreaterThan(15_000);
      expect(
        server.requests
          .at(-1)!
          .body.messages.map((m: any) => JSON.stringify(m.content))
          .join(""),
      ).toContain(JSON.stringify(page).slice(1, -1).slice(0, 2000));
      // What the store already holds is never stored again under a key of the read.
      const keys = [
        ...((store as unknown as { threads: Map<string, Map<string, string>> }).threads
          .get(`thread:rb-${route}`)
          ?.keys() ?? []),
      ];
      expect(keys.filter((k) => k.startsWith("read_stored_result"))).toEqual([]);
      for (const r of server.requests) expect(r.tokens + 4096).toBeLessThanOrEqual(16_384);
      expect(findToolCallPairingViolation(messages)).toBeUndefined();
    }, 60_000);
  },
);
