import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { InMemoryStore } from "@langchain/langgraph";
import { z } from "zod";
import { ToolResultBudgetMiddleware } from "../../../src/guards/budget/ToolResultBudgetMiddleware.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";
import { LangGraphOffloadStore } from "../../../src/offload/LangGraphOffloadStore.js";
import { FileSystemOffloadStore } from "../../../src/node.js";
import type { OffloadStore } from "../../../src/offload/OffloadStore.js";
import type { Signal } from "../../../src/core/signals.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { keyIn, readStoredTurn } from "../../e2e/offloadKeys.js";

/** A log whose lines are numbered, so any slice can be checked against its position. */
function makeLog(lines: number, marker = "ok"): string {
  return Array.from(
    { length: lines },
    (_, i) => `line ${String(i).padStart(6, "0")} status=${i % 97 === 0 ? "ERROR" : marker}`,
  ).join("\n");
}

const LOG = makeLog(12_000); // about 300,000 characters

const fetchLogs = tool(async () => LOG, {
  name: "fetch_logs",
  description: "Returns the service log.",
  schema: z.object({}),
});

function toolMessages(messages: BaseMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
}

function lastSeenToolText(model: ScriptedChatModel): string {
  const seen = model.seen.at(-1)!;
  return String(seen.at(-1)!.content);
}

async function run(
  store: OffloadStore | undefined,
  turns: ScriptedTurn[],
  extra: Partial<ConstructorParameters<typeof ToolResultBudgetMiddleware>[0]> = {},
) {
  const signals: Signal[] = [];
  const budget = new ToolResultBudgetMiddleware({ limit: 4000, store, onSignal: (s) => signals.push(s), ...extra });
  const model = new ScriptedChatModel({ turns });
  const agent = createAgent({ model, tools: [fetchLogs], middleware: [budget] });
  const result = await agent.invoke({ messages: [new HumanMessage("find the errors")] });
  assertToolCallPairing(result.messages);
  return { result, model, signals, budget };
}

describe("ToolResultBudgetMiddleware through createAgent", () => {
  it("replaces a 300 KB result by a preview the model reads, then pages and searches the rest", async () => {
    const store = new MemoryOffloadStore();
    const { result, model, signals } = await run(store, [
      { toolCalls: [{ name: "fetch_logs", args: {}, id: "call_logs" }] },
      readStoredTurn({ offset: 150_000, length: 500 }),
      readStoredTurn({ pattern: "status=ERROR" }),
      { text: "done" },
    ]);

    const [preview, slice, matches] = toolMessages(result.messages);
    const previewText = String(preview!.content);
    expect(previewText.length).toBeLessThanOrEqual(4000);
    expect(previewText).toContain(`returned ${LOG.length} characters`);
    expect(previewText.startsWith("[fetch_logs returned")).toBe(true);
    expect(previewText).toContain(LOG.slice(0, 1000));
    expect(previewText).toContain(LOG.slice(-1000));
    const omitted = Number(/\[\.\.\. (\d+) characters omitted \.\.\.\]/.exec(previewText)![1]);
    expect(omitted).toBeGreaterThan(LOG.length - 4000);
    const key = keyIn(result.messages);
    expect(key).toMatch(/^fetch_logs-call_logs-[0-9a-f]{16}$/);
    expect(previewText).toContain(`read_stored_result with key "${key}"`);
    // What the model saw on its second call is the preview, not the log.
    expect(model.seen[1]!.at(-1)!.content).toBe(previewText);

    const sliceText = String(slice!.content);
    expect(sliceText).toContain(LOG.slice(150_000, 150_500));
    expect(sliceText).toContain("Continue with offset 150500");

    const matchText = String(matches!.content);
    const errorLines = LOG.split("\n").filter((line) => line.includes("status=ERROR"));
    expect(matchText).toContain(`${errorLines.length} lines match`);
    expect(matchText).toContain(`1: ${errorLines[0]}`);
    expect(matchText.length).toBeLessThanOrEqual(4000);

    expect(store.size).toBe(1);
    expect(signals.map((s) => s.reason)).toEqual(["result_offloaded"]);
    expect(result.messages.at(-1)!.content).toBe("done");
  });

  it("records the original's size and fingerprint and keeps the ToolMessage's metadata", async () => {
    const rich = tool(async () => [LOG, { raw: LOG.length }], {
      name: "fetch_logs",
      description: "log with artifact",
      schema: z.object({}),
      responseFormat: "content_and_artifact",
    });
    const model = new ScriptedChatModel({
      turns: [{ toolCalls: [{ name: "fetch_logs", args: {}, id: "call_meta" }] }, { text: "done" }],
    });
    const agent = createAgent({
      model,
      tools: [rich],
      middleware: [new ToolResultBudgetMiddleware({ limit: 4000, store: new MemoryOffloadStore() })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    const [message] = toolMessages(result.messages);
    expect(message!.artifact).toEqual({ raw: LOG.length });
    expect(message!.name).toBe("fetch_logs");
    expect(message!.tool_call_id).toBe("call_meta");
    expect(message!.status).toBe("success");
    const mark = (message!.response_metadata as { harness_kit: Record<string, any> }).harness_kit;
    expect(mark.guard).toBe("ToolResultBudgetMiddleware");
    expect(mark.action).toBe("warn");
    expect(mark.original).toMatchObject({ size: LOG.length, offloadKey: keyIn(result.messages) });
    expect(mark.original.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(mark.budget).toMatchObject({ action: "offload", limit: 4000, unit: "chars" });
  });

  it("leaves results under the budget untouched", async () => {
    const small = tool(async () => "short answer", { name: "fetch_logs", description: "small", schema: z.object({}) });
    const model = new ScriptedChatModel({
      turns: [{ toolCalls: [{ name: "fetch_logs", args: {} }] }, { text: "done" }],
    });
    const signals: Signal[] = [];
    const agent = createAgent({
      model,
      tools: [small],
      middleware: [new ToolResultBudgetMiddleware({ onSignal: (s) => signals.push(s) })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    const [message] = toolMessages(result.messages);
    expect(message!.content).toBe("short answer");
    expect(message!.response_metadata?.harness_kit).toBeUndefined();
    expect(signals).toEqual([]);
  });

  it("without a store, cuts the result and says the rest was not kept", async () => {
    const { result, budget } = await run(undefined, [
      { toolCalls: [{ name: "fetch_logs", args: {} }] },
      { text: "done" },
    ]);
    expect(budget.tools).toEqual([]);
    const text = String(toolMessages(result.messages)[0]!.content);
    expect(text.length).toBeLessThanOrEqual(4000);
    expect(text).toMatch(
      /The omitted \d+ characters were not kept\. If you need them, call fetch_logs again with narrower arguments/,
    );
  });

  it("when the store fails, truncates with an explicit notice and the run goes on", async () => {
    const broken: OffloadStore = {
      put: async () => {
        throw new Error("disk full");
      },
      get: async () => undefined,
    };
    const { result, signals } = await run(broken, [
      { toolCalls: [{ name: "fetch_logs", args: {} }] },
      { text: "carried on" },
    ]);
    const text = String(toolMessages(result.messages)[0]!.content);
    expect(text).toContain("were not kept (storing them failed: disk full)");
    expect(text).not.toContain("stored under the key");
    expect(result.messages.at(-1)!.content).toBe("carried on");
    expect(signals[0]).toMatchObject({ guard: "ToolResultBudgetMiddleware", reason: "store_failed" });
  });

  it("shares a per-turn budget among parallel calls", async () => {
    const store = new MemoryOffloadStore();
    const { result } = await run(
      store,
      [
        {
          toolCalls: [
            { name: "fetch_logs", args: {}, id: "p1" },
            { name: "fetch_logs", args: {}, id: "p2" },
            { name: "fetch_logs", args: {}, id: "p3" },
          ],
        },
        { text: "done" },
      ],
      { limit: 20_000, turnLimit: 9000 },
    );
    const texts = toolMessages(result.messages).map((m) => String(m.content));
    expect(texts).toHaveLength(3);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(3000);
    expect(texts.reduce((sum, t) => sum + t.length, 0)).toBeLessThanOrEqual(9000);
    expect(store.size).toBe(3);
  });

  it("reads back through a LangGraph BaseStore shared with the agent", async () => {
    const langGraphStore = new InMemoryStore();
    const store = new LangGraphOffloadStore({ store: langGraphStore, namespace: ["tests", "offload"] });
    const { result } = await run(store, [
      { toolCalls: [{ name: "fetch_logs", args: {}, id: "call_lg" }] },
      readStoredTurn({ offset: 0, length: 100 }),
      { text: "done" },
    ]);
    const item = await langGraphStore.get(["tests", "offload", "no-thread"], keyIn(result.messages));
    expect(item?.value).toMatchObject({ content: LOG, tool: "fetch_logs", toolCallId: "call_lg", chars: LOG.length });
    expect(String(toolMessages(result.messages)[1]!.content)).toContain(LOG.slice(0, 100));
  });

  describe("with the filesystem store", () => {
    let dir: string;
    afterAll(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("writes the result as one file and reads it back", async () => {
      dir = await mkdtemp(join(tmpdir(), "harness-kit-offload-"));
      const store = new FileSystemOffloadStore({ dir });
      const { result } = await run(store, [
        { toolCalls: [{ name: "fetch_logs", args: {}, id: "call_fs" }] },
        readStoredTurn({ offset: LOG.length - 50 }),
        { text: "done" },
      ]);
      expect(await readdir(join(dir, "no-thread"))).toEqual([`result-${keyIn(result.messages)}.txt`]);
      const tail = String(toolMessages(result.messages)[1]!.content);
      expect(tail).toContain(LOG.slice(-50));
      expect(tail).toContain("This is the end of the result.");
    });
  });

  it("answers a missing key and keeps tool exceptions from crashing the run", async () => {
    const crash = tool(
      async () => {
        throw new Error("upstream timeout");
      },
      { name: "crash", description: "always fails", schema: z.object({}) },
    );
    const model = new ScriptedChatModel({
      turns: [
        {
          toolCalls: [
            { name: "read_stored_result", args: { key: "nope" } },
            { name: "crash", args: {} },
          ],
        },
        { text: "done" },
      ],
    });
    const agent = createAgent({
      model,
      tools: [crash],
      middleware: [new ToolResultBudgetMiddleware({ store: new MemoryOffloadStore() })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    const [missing, crashed] = toolMessages(result.messages);
    expect(String(missing!.content)).toContain('Nothing is stored under the key "nope"');
    expect(crashed!.status).toBe("error");
    expect(String(crashed!.content)).toContain("upstream timeout");
    assertToolCallPairing(result.messages);
  });

  it("measures in tokens with a pluggable counter", async () => {
    const countTokens = (text: string) => text.split(/\s+/).filter(Boolean).length;
    const { result } = await run(
      new MemoryOffloadStore(),
      [{ toolCalls: [{ name: "fetch_logs", args: {} }] }, { text: "done" }],
      {
        unit: "tokens",
        limit: 600,
        countTokens,
      },
    );
    const text = String(toolMessages(result.messages)[0]!.content);
    expect(countTokens(text)).toBeLessThanOrEqual(600);
    expect(text).toContain("more than the 600 tokens");
    expect(text).toContain(`(about ${countTokens(LOG)} tokens)`);
  });
});

export { makeLog, lastSeenToolText };
