import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { createDeepAgent, FilesystemBackend } from "deepagents";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { ToolResultBudgetMiddleware } from "../../src/guards/budget/ToolResultBudgetMiddleware.js";
import { MemoryOffloadStore } from "../../src/offload/MemoryOffloadStore.js";
import { LangGraphOffloadStore } from "../../src/offload/LangGraphOffloadStore.js";
import { AgentFilesOffloadStore } from "../../src/offload/AgentFilesOffloadStore.js";
import { FileSystemOffloadStore } from "../../src/node.js";
import type { OffloadStore } from "../../src/offload/OffloadStore.js";
import { scopeNameForThread } from "../../src/offload/fileNames.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { keyIn } from "../e2e/offloadKeys.js";

/**
 * Issue 12, "Offloads are not private to their thread": one store shared by two threads of real
 * checkpointed agents. Thread B must not read thread A's 70 KB result by its key, and call ids a
 * model reuses must never make one result replace another.
 */

/** A 70 KB result that says whose it is on every line. */
const secretOf = (owner: string) =>
  Array.from({ length: 1400 }, (_, i) => `${owner} secret line ${String(i).padStart(5, "0")} ${"x".repeat(25)}`).join(
    "\n",
  );

const fetchTool = tool(async ({ owner }: { owner: string }) => secretOf(owner), {
  name: "fetch",
  description: "Returns the owner's data.",
  schema: z.object({ owner: z.string() }),
});

function toolTexts(messages: BaseMessage[]): string[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => String(m.content));
}

const readTurn =
  (key: string | (() => string), args: Record<string, unknown> = {}): ScriptedTurn =>
  () => ({
    toolCalls: [{ name: "read_stored_result", args: { key: typeof key === "string" ? key : key(), ...args } }],
  });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "hk-threads-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const STORES: Record<string, () => OffloadStore> = {
  MemoryOffloadStore: () => new MemoryOffloadStore(),
  LangGraphOffloadStore: () => new LangGraphOffloadStore({ store: new InMemoryStore() }),
  FileSystemOffloadStore: () => new FileSystemOffloadStore({ dir: join(dir, String(Math.random()).slice(2)) }),
};

for (const [name, makeStore] of Object.entries(STORES)) {
  describe(`${name} shared by two threads of a checkpointed createAgent`, () => {
    it("gives thread B nothing for thread A's key, and A still reads its own", async () => {
      const store = makeStore();
      const checkpointer = new MemorySaver();
      const run = async (thread: string, turns: ScriptedTurn[]) => {
        const model = new ScriptedChatModel({ turns });
        const agent = createAgent({
          model,
          tools: [fetchTool],
          checkpointer,
          middleware: [new ToolResultBudgetMiddleware({ limit: 4000, store })],
        });
        const result = await agent.invoke(
          { messages: [new HumanMessage("go")] },
          { configurable: { thread_id: thread } },
        );
        assertToolCallPairing(result.messages);
        return result.messages as BaseMessage[];
      };

      const a = await run("thread-A", [
        { toolCalls: [{ name: "fetch", args: { owner: "alice" }, id: "call_0" }] },
        { text: "done" },
      ]);
      const keyA = keyIn(a);
      const b = await run("thread-B", [
        { toolCalls: [{ name: "fetch", args: { owner: "bob" }, id: "call_0" }] },
        readTurn(keyA, { offset: 0 }),
        readTurn(keyA, { pattern: "alice" }),
        { text: "done" },
      ]);
      const keyB = keyIn(b.slice(0, 3));
      expect(keyB).not.toBe(keyA);
      const [, slice, search] = toolTexts(b);
      expect(slice).toContain(`Nothing is stored under the key "${keyA}"`);
      expect(search).toContain(`Nothing is stored under the key "${keyA}"`);
      expect(b.map((m) => String(m.content)).join("\n")).not.toContain("alice secret");

      // The owner, in a later run of its thread, reads its result back whole.
      const again = await run("thread-A", [readTurn(keyA, { offset: 35_000, length: 300 }), { text: "done" }]);
      expect(toolTexts(again).at(-1)).toContain(secretOf("alice").slice(35_000, 35_300));
    });

    it("never lets a reused or look-alike call id replace another result", async () => {
      const store = makeStore();
      const long = "z".repeat(80);
      const ids = ["call_0", "call_0", "call.1", "call:1", `a${long}`, `b${long}`];
      const turns: ScriptedTurn[] = ids.map((id, turn) => ({
        toolCalls: [{ name: "fetch", args: { owner: `owner${turn}` }, id }],
      }));
      const keys: string[] = [];
      const readEach: ScriptedTurn[] = ids.map((_, turn) => (messages: BaseMessage[]) => {
        if (turn === 0)
          keys.push(...toolTexts(messages).map((text) => /stored under the key "([^"]+)"/.exec(text)![1]!));
        return {
          toolCalls: [{ name: "read_stored_result", args: { key: keys[turn]!, pattern: "secret line 00007 " } }],
        };
      });
      const model = new ScriptedChatModel({ turns: [...turns, ...readEach, { text: "done" }] });
      const agent = createAgent({
        model,
        tools: [fetchTool],
        checkpointer: new MemorySaver(),
        middleware: [new ToolResultBudgetMiddleware({ limit: 4000, store })],
      });
      const result = await agent.invoke(
        { messages: [new HumanMessage("go")] },
        { configurable: { thread_id: "one" }, recursionLimit: 100 },
      );
      assertToolCallPairing(result.messages);
      expect(new Set(keys).size).toBe(ids.length);
      const answers = toolTexts(result.messages).slice(ids.length);
      answers.forEach((answer, turn) => expect(answer).toContain(`owner${turn} secret line 00007`));
    });
  });
}

describe("AgentFilesOffloadStore over a FilesystemBackend shared by two threads of createDeepAgent", () => {
  it("keeps each thread's results in its own folder, and thread B reads nothing of A's", async () => {
    const root = await mkdtemp(join(tmpdir(), "hk-deep-threads-"));
    try {
      const backend = new FilesystemBackend({ rootDir: root, virtualMode: true });
      const store = new AgentFilesOffloadStore({ backend });
      const checkpointer = new MemorySaver();
      const run = async (thread: string, turns: ScriptedTurn[]) => {
        const model = new ScriptedChatModel({ turns });
        const agent = createDeepAgent({
          model,
          tools: [fetchTool],
          backend,
          checkpointer,
          middleware: [new ToolResultBudgetMiddleware({ limit: 4000, store })],
        });
        const result = (await agent.invoke(
          { messages: [new HumanMessage("go")] },
          { configurable: { thread_id: thread } },
        )) as { messages: BaseMessage[] };
        assertToolCallPairing(result.messages);
        return result.messages;
      };
      const a = await run("A", [
        { toolCalls: [{ name: "fetch", args: { owner: "alice" }, id: "call_0" }] },
        { text: "done" },
      ]);
      const keyA = keyIn(a);
      expect(toolTexts(a)[0]).toContain(`/large_tool_results/${scopeNameForThread("A")}/${keyA}.txt`);
      const b = await run("B", [readTurn(keyA, { pattern: "alice" }), { text: "done" }]);
      expect(toolTexts(b)[0]).toContain(`Nothing is stored under the key "${keyA}"`);
      const own = await run("A", [readTurn(keyA, { pattern: "line 00042 " }), { text: "done" }]);
      expect(toolTexts(own).at(-1)).toContain("alice secret line 00042");
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
