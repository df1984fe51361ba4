import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createDeepAgent } from "deepagents";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { originalOf } from "../../../src/core/marks.js";
import { contentText } from "../../../src/observe/content.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";
import { recommendedGuards } from "../../../src/stack/recommendedGuards.js";
import { ScriptedChatModel } from "../../../src/testing/index.js";

/**
 * The budget previews a large result and stores it whole; when the context-overflow guard later
 * has to shorten that preview in a request, the whole result is stored already: the request
 * points to the budget's copy, with the whole result's size, and nothing is stored again.
 */

const SOURCES = 6;

function source(n: number): string {
  return Array.from(
    { length: 600 },
    (_, i) => `Source ${n}, line ${i}: routine reading ${(i * 7919 + n) % 1000}.`,
  ).join("\n");
}

const fetchSource = tool(async ({ n }: { n: number }) => source(n), {
  name: "fetch_source",
  description: "Fetch one source document",
  schema: z.object({ n: z.number() }),
});

/** A model that fetches every source, one a turn, then answers; `reusedIds`: every call has the same id, as some providers send. */
function readingModel(reusedIds: boolean): ScriptedChatModel {
  return new ScriptedChatModel({
    turns: [
      ...Array.from({ length: SOURCES }, (_, n) => ({
        toolCalls: [{ name: "fetch_source", args: { n }, ...(reusedIds ? { id: "call_1" } : {}) }],
      })),
      { text: "done" },
    ],
  });
}

/** The notes in place of results in the model's last request: each names a key and the whole result's size. */
function notesSentLast(model: ScriptedChatModel): string[] {
  const notes = model.seen
    .at(-1)!
    .filter(ToolMessage.isInstance)
    .map((m) => contentText(m.content))
    .filter((text) => text.startsWith("[The result of fetch_source ("));
  expect(notes.length).toBeGreaterThan(0);
  return notes;
}

// At LangGraph's default recursionLimit, with ids unique or reused.
async function run(reusedIds: boolean) {
  const model = readingModel(reusedIds);
  const store = new MemoryOffloadStore();
  const guards = recommendedGuards({ offloadStore: store, contextOverflow: { maxInputTokens: 16_384 } });
  const agent = createAgent({ model, tools: [fetchSource], middleware: guards.agent });
  const { messages } = await agent.invoke(
    { messages: [new HumanMessage("read the sources")] },
    { configurable: { thread_id: "previews" } },
  );
  const threads = (store as unknown as { threads: Map<string, Map<string, string>> }).threads;
  return { messages: messages as BaseMessage[], model, keys: [...(threads.get("thread:previews")?.keys() ?? [])] };
}

describe("a budget's preview in a request over the window", () => {
  it.each([false, true])(
    "is shortened to a note naming the budget's key and the whole result's size; nothing is stored again (ids reused: %s)",
    async (reusedIds) => {
      const { messages, model, keys } = await run(reusedIds);
      expect(messages.at(-1)!.content).toBe("done");
      const previews = messages.filter(ToolMessage.isInstance);
      expect(previews).toHaveLength(SOURCES);
      const originals = previews.map((m) => originalOf(m)!);
      for (const [n, original] of originals.entries()) {
        expect(original.offloadKey).toBeDefined();
        expect(original.size).toBe(source(n).length);
      }
      // The store holds the budget's copies and nothing else.
      expect(keys.sort()).toEqual(originals.map((o) => o.offloadKey!).sort());

      // The last request could not hold every preview: the older ones went out as notes.
      for (const note of notesSentLast(model)) {
        const [, chars, key] =
          /^\[The result of fetch_source \((\d+) characters\).*the key "([^"]+)"; to read it, call read_stored_result with key "\2" and offset 0/.exec(
            note,
          ) ?? [];
        const original = originals.find((o) => o.offloadKey === key);
        expect(original, note).toBeDefined();
        expect(Number(chars)).toBe(original!.size);
      }
    },
  );

  it("in a deep agent, names the agent's own file of the whole result, as the budget's store worded it", async () => {
    const model = readingModel(false);
    const guards = recommendedGuards({ contextOverflow: { maxInputTokens: 24_000 } });
    const agent = createDeepAgent({ model, tools: [fetchSource], middleware: guards.deepAgent });
    const result = await agent.invoke({ messages: [new HumanMessage("read the sources")] });
    const messages = result.messages as BaseMessage[];
    const originals = messages.filter(ToolMessage.isInstance).flatMap((m) => originalOf(m) ?? []);
    expect(originals).toHaveLength(SOURCES);
    // The agent's files hold the budget's copies and nothing else.
    expect(Object.keys((result as { files?: object }).files ?? {})).toHaveLength(SOURCES);

    for (const note of notesSentLast(model)) {
      const original = originals.find((o) => note.includes(`the key "${o.offloadKey}"`));
      expect(original, note).toBeDefined();
      expect(note).toContain(`(${original!.size} characters)`);
      expect(note).toContain(`to read it, ${original!.readHint}.`);
      expect(original!.readHint).toMatch(/^use read_file with file_path "/);
    }
  });
});
