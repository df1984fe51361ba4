import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ToolResultBudgetMiddleware } from "../../src/guards/budget/ToolResultBudgetMiddleware.js";
import { MemoryOffloadStore } from "../../src/offload/MemoryOffloadStore.js";
import type { OffloadStore } from "../../src/offload/OffloadStore.js";
import { OffloadTimeoutError, withStoreTimeout } from "../../src/offload/timeouts.js";
import type { Signal } from "../../src/core/signals.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";

/** Issue 12: "A store that never settles hangs the run (put) or the retrieval tool (get)". */

const BIG = "log line that repeats\n".repeat(5000);
const fetchTool = tool(async () => BIG, { name: "fetch", description: "big", schema: z.object({}) });
const never = <T>() => new Promise<T>(() => undefined);

class SilentStore implements OffloadStore {
  constructor(
    private readonly silent: { put?: boolean; get?: boolean; read?: boolean },
    private readonly inner = new MemoryOffloadStore(),
  ) {}
  put: OffloadStore["put"] = (key, content, context) =>
    this.silent.put ? never() : this.inner.put(key, content, context);
  get: OffloadStore["get"] = (key, context) => (this.silent.get ? never() : this.inner.get(key, context));
  read: NonNullable<OffloadStore["read"]> = (key, range, context) =>
    this.silent.read ? never() : this.inner.read(key, range, context);
}

async function run(store: OffloadStore, turns: ScriptedTurn[]) {
  const signals: Signal[] = [];
  const model = new ScriptedChatModel({ turns });
  const budget = new ToolResultBudgetMiddleware({
    limit: 4000,
    store,
    storeTimeoutMs: 200,
    onSignal: (s) => signals.push(s),
  });
  const agent = createAgent({ model, tools: [fetchTool], middleware: [budget] });
  const started = performance.now();
  const result = await agent.invoke({ messages: [new HumanMessage("go")] });
  assertToolCallPairing(result.messages);
  const texts = (result.messages as BaseMessage[])
    .filter((m) => ToolMessage.isInstance(m))
    .map((m) => String(m.content));
  return { texts, signals, elapsed: performance.now() - started, last: String(result.messages.at(-1)!.content) };
}

describe("a store that never settles", () => {
  it("put: the result is cut with a notice that names the timeout, and the run goes on", async () => {
    const { texts, signals, elapsed, last } = await run(new SilentStore({ put: true }), [
      { toolCalls: [{ name: "fetch", args: {} }] },
      { text: "went on" },
    ]);
    expect(texts[0]).toMatch(
      /were not kept \(storing them failed: SilentStore: the store did not answer within 200 ms \(put\)/,
    );
    expect(texts[0]!.length).toBeLessThanOrEqual(4000);
    expect(signals[0]).toMatchObject({ reason: "store_failed" });
    expect(last).toBe("went on");
    expect(elapsed).toBeLessThan(3000);
  });

  it("get and read: the retrieval tool answers that the store did not answer, and the run goes on", async () => {
    for (const silent of [{ get: true, read: true }, { read: true }, { get: true }]) {
      const store = new SilentStore(silent);
      const { texts, last } = await run(store, [
        { toolCalls: [{ name: "fetch", args: {} }] },
        (messages) => {
          const key = /stored under the key "([^"]+)"/.exec(String(messages.at(-1)!.content))![1]!;
          return {
            toolCalls: [
              { name: "read_stored_result", args: { key, offset: 10 } },
              { name: "read_stored_result", args: { key, pattern: "repeats" } },
            ],
          };
        },
        { text: "went on" },
      ]);
      const [, slice, search] = texts;
      if (silent.read)
        expect(slice).toMatch(/could not be read \(SilentStore: the store did not answer within 200 ms \(read\)/);
      else expect(slice).toContain("[Characters 10 to");
      if (silent.get)
        expect(search).toMatch(/could not be read \(SilentStore: the store did not answer within 200 ms \(read\)/);
      else expect(search).toContain("5000 lines match");
      expect(last).toBe("went on");
    }
  });

  it("withStoreTimeout passes results and errors through, and swallows a late rejection", async () => {
    expect(await withStoreTimeout(Promise.resolve(7), 50, "S", "k", "put")).toBe(7);
    await expect(withStoreTimeout(Promise.reject(new Error("disk")), 50, "S", "k", "put")).rejects.toThrow("disk");
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error("late")), 80));
    await expect(withStoreTimeout(late, 20, "S", "k", "read")).rejects.toBeInstanceOf(OffloadTimeoutError);
    await new Promise((resolve) => setTimeout(resolve, 100));
  });
});
