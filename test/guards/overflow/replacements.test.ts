import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { createMeasure } from "../../../src/guards/budget/measure.js";
import { renderSlice, readBackSource } from "../../../src/guards/budget/readBack.js";
import { ContextOverflowGuardMiddleware } from "../../../src/guards/overflow/ContextOverflowGuardMiddleware.js";
import { keptAt, previewResult } from "../../../src/guards/overflow/replacements.js";
import { readContextRecord } from "../../../src/guards/overflow/record.js";
import { argsKeyOf } from "../../../src/observe/argsIdentity.js";
import { loadHasher } from "../../../src/observe/hash.js";
import { AgentFilesOffloadStore } from "../../../src/offload/AgentFilesOffloadStore.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";
import { contentText } from "../../../src/observe/content.js";

const lines = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${tag} line ${i}: value ${i * 37}`).join("\n");

describe("what the overflow guard says about a result it shortened", () => {
  it("a preview names the offset where its omitted part starts, not 0", () => {
    const text = lines("report", 400);
    const preview = contentText(
      previewResult(
        new ToolMessage({ tool_call_id: "c1", name: "fetch", content: text }),
        keptAt("fetch-c1-abc", undefined),
        300,
        createMeasure("tokens"),
      ).content,
    );
    const from = Number(/The omitted part starts at character (\d+)/.exec(preview)![1]);
    expect(from).toBeGreaterThan(0);
    expect(preview).toContain(`key "fetch-c1-abc" and offset ${from}`);
    // A store's own hint (deepagents' read_file) is kept as it is.
    const hinted = contentText(
      previewResult(
        new ToolMessage({ tool_call_id: "c1", name: "fetch", content: text }),
        keptAt("k", "use read_file on /large/k"),
        300,
        createMeasure("tokens"),
      ).content,
    );
    expect(hinted).toContain("To read it, use read_file on /large/k.");
  });
});

describe("a read back in the request", () => {
  const page = renderSlice(
    "fetch-c7-0123456789abcdef",
    { text: lines("stored", 2000), start: 0, total: 90_000 },
    41_000,
    undefined,
    20_000,
  );

  it("is recognised by its header: the key and the offset it was read at", () => {
    expect(readBackSource(page)).toEqual({ key: "fetch-c7-0123456789abcdef", offset: 41_000 });
    expect(
      readBackSource(
        '[3 lines match "code" in the result stored under "k1" from character 500 on, shown as "line number: line".]',
      ),
    ).toEqual({ key: "k1", offset: 500, search: true });
    expect(readBackSource("plain text")).toBeUndefined();
  });

  it("is never stored again: an older one is pointed to at its key and offset, the same call for the loop guards", async () => {
    const call = {
      id: "r1",
      name: "read_stored_result",
      args: { key: "fetch-c7-0123456789abcdef", offset: 41_000 },
      type: "tool_call" as const,
    };
    const messages: BaseMessage[] = [
      new HumanMessage({ id: "u", content: "find it" }),
      new AIMessage({ id: "a1", content: "", tool_calls: [call] }),
      new ToolMessage({ tool_call_id: "r1", name: "read_stored_result", content: page }),
      new AIMessage({
        id: "a2",
        content: "",
        tool_calls: [{ id: "f2", name: "fetch", args: { n: 2 }, type: "tool_call" }],
      }),
      new ToolMessage({ tool_call_id: "f2", name: "fetch", content: "short" }),
    ];
    const store = new MemoryOffloadStore();
    const guard = new ContextOverflowGuardMiddleware({ maxInputTokens: 4000, reserveTokens: 500, store });
    let sent: BaseMessage[] = [];
    const answer = await guard.wrapModelCall(
      { messages, tools: [], runtime: { configurable: { thread_id: "rb" } } },
      async (request) => ((sent = request.messages), new AIMessage("ok")),
    );

    const stub = contentText(sent[2]!.content);
    expect(stub).toMatch(/^\[Your read of the result stored under the key "fetch-c7-0123456789abcdef"/);
    expect(stub).toContain('call read_stored_result with key "fetch-c7-0123456789abcdef" and offset 41000');
    expect(readContextRecord(answer)!.removed).toEqual([
      expect.objectContaining({ index: 2, action: "stub", key: "fetch-c7-0123456789abcdef" }),
    ]);
    const threads = (store as unknown as { threads: Map<string, Map<string, string>> }).threads;
    expect([...(threads.get("thread:rb")?.keys() ?? [])]).toEqual([]);
    // Following the notice repeats the earlier call exactly.
    const again = /call read_stored_result with key "([^"]+)" and offset (\d+)/.exec(stub)!;
    const hash = await loadHasher();
    expect(argsKeyOf("read_stored_result", { key: again[1], offset: Number(again[2]) }, hash)).toBe(
      argsKeyOf(call.name, call.args, hash),
    );
  });
});

describe("a deep agent's read_file of a stored file in the request", () => {
  it("is a read back too: an older one is pointed to with the call that reads it again, nothing stored", async () => {
    const path = "/large_tool_results/fetch-c7-0123456789abcdef.txt";
    const messages: BaseMessage[] = [
      new HumanMessage({ id: "u", content: "find it" }),
      new AIMessage({
        id: "a1",
        content: "",
        tool_calls: [
          { id: "r1", name: "read_file", args: { file_path: path, offset: 200, limit: 400 }, type: "tool_call" },
        ],
      }),
      new ToolMessage({ tool_call_id: "r1", name: "read_file", content: lines("stored", 400) }),
      new AIMessage({
        id: "a2",
        content: "",
        tool_calls: [{ id: "f2", name: "fetch", args: { n: 2 }, type: "tool_call" }],
      }),
      new ToolMessage({ tool_call_id: "f2", name: "fetch", content: "short" }),
    ];
    const store = new AgentFilesOffloadStore();
    const puts: string[] = [];
    const spied = Object.assign(Object.create(store) as AgentFilesOffloadStore, {
      put: (
        key: string,
        ...rest: Parameters<AgentFilesOffloadStore["put"]> extends [string, ...infer R] ? R : never
      ) => (puts.push(key), store.put(key, ...rest)),
    });
    const guard = new ContextOverflowGuardMiddleware({
      maxInputTokens: 3000,
      reserveTokens: 500,
      store: spied,
      retrievalTool: false,
    });
    let sent: BaseMessage[] = [];
    await guard.wrapModelCall(
      { messages, tools: [], runtime: { configurable: { thread_id: "da" } } },
      async (request) => ((sent = request.messages), new AIMessage("ok")),
    );
    const stub = contentText(sent[2]!.content);
    expect(stub).toContain(`use read_file with file_path "${path}", offset 200 and limit 400`);
    expect(puts).toEqual([]);
  });
});

describe("reading back the same stored bytes under another key", () => {
  it("is the same call for the loop guards: the same identity, counted as a repeat", async () => {
    const { buildObservations } = await import("../../../src/observe/store.js");
    // Two calls returned the same page; the budget stored each under its own key (its mark names the key and the original's fingerprint).
    const preview = (id: string, key: string) =>
      new ToolMessage({
        tool_call_id: id,
        name: "fetch",
        content: `[preview of ${key}]`,
        response_metadata: {
          harness_kit: {
            guard: "ToolResultBudgetMiddleware",
            action: "warn",
            reason: "result_offloaded",
            original: { fingerprint: "f00d", size: 40_000, offloadKey: key },
          },
        },
      });
    const read = (id: string, key: string) =>
      new AIMessage({
        id: `a-${id}`,
        content: "",
        tool_calls: [{ id, name: "read_stored_result", args: { key, offset: 675 }, type: "tool_call" }],
      });
    const messages = [
      new HumanMessage("go"),
      new AIMessage({
        id: "a1",
        content: "",
        tool_calls: [{ id: "c1", name: "fetch", args: { n: 7 }, type: "tool_call" }],
      }),
      preview("c1", "fetch-c1-aaaa"),
      new AIMessage({
        id: "a2",
        content: "",
        tool_calls: [{ id: "c2", name: "fetch", args: { n: 7, again: true }, type: "tool_call" }],
      }),
      preview("c2", "fetch-c2-bbbb"),
      read("r1", "fetch-c1-aaaa"),
      new ToolMessage({
        tool_call_id: "r1",
        name: "read_stored_result",
        content: '[Characters 675 to 20000 of 40000 stored under "fetch-c1-aaaa". Continue with offset 20000.]\n...',
      }),
      read("r2", "fetch-c2-bbbb"),
      new ToolMessage({
        tool_call_id: "r2",
        name: "read_stored_result",
        content: '[Characters 675 to 20000 of 40000 stored under "fetch-c2-bbbb". Continue with offset 20000.]\n...',
      }),
      read("r3", "other-key"),
      new ToolMessage({
        tool_call_id: "r3",
        name: "read_stored_result",
        content: 'Nothing is stored under the key "other-key".',
      }),
    ];
    const observations = await buildObservations(messages);
    const [r1, r2, r3] = observations.filter((o) => o.toolName === "read_stored_result");
    expect(r2!.argsKey).toBe(r1!.argsKey);
    expect(r2!.sameArgsRepeatCount).toBe(1);
    expect(r3!.argsKey).not.toBe(r1!.argsKey);
    // The arguments as called are kept: only the identity is shared.
    expect(r2!.argsFingerprint).not.toBe(r1!.argsFingerprint);
  });
});
