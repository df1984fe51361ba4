import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  mapChatMessagesToStoredMessages,
} from "@langchain/core/messages";
import { ThreadLoadError, assertToolCallPairing, loadThread, parseThread } from "../../src/testing/index.js";
import { loadThreads } from "../../src/replay/threads.js";
import { tempFiles } from "../helpers/tempFiles.js";

const { dir, write } = tempFiles("harness-kit-threads-");

describe("loadThread formats", () => {
  it("reads LangChain message dicts with id and outcome", () => {
    const path = write("dicts.json", {
      id: "thread-7",
      outcome: { reward: 1 },
      messages: [
        { type: "system", content: "be brief" },
        { type: "human", content: "hi", name: "user_1" },
        { type: "ai", content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "x" }, type: "tool_call" }] },
        { type: "tool", tool_call_id: "c1", name: "search", content: "found" },
        { type: "ai", content: "done" },
      ],
    });
    const thread = loadThread(path);
    expect(thread.id).toBe("thread-7");
    expect(thread.source).toBe(path);
    expect(thread.outcome).toEqual({ reward: 1 });
    expect(thread.messages.map((m) => m.type)).toEqual(["system", "human", "ai", "tool", "ai"]);
    expect(thread.messages[1]!.name).toBe("user_1");
    expect((thread.messages[2] as AIMessage).tool_calls).toEqual([
      expect.objectContaining({ id: "c1", name: "search", args: { q: "x" } }),
    ]);
    expect((thread.messages[3] as ToolMessage).tool_call_id).toBe("c1");
    assertToolCallPairing(thread.messages);
  });

  it("reads LangChain stored messages, and uses the path as id when there is none", () => {
    const original = [
      new HumanMessage("hi"),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "ls", args: { path: "/" }, type: "tool_call" }] }),
      new ToolMessage({ content: "a.txt", tool_call_id: "c1", name: "ls" }),
      new AIMessage("two files"),
    ];
    const path = write("stored.json", mapChatMessagesToStoredMessages(original));
    const thread = loadThread(path);
    expect(thread.id).toBe(path);
    expect(thread.outcome).toBeUndefined();
    expect(thread.messages.map((m) => [m.type, m.text])).toEqual(original.map((m) => [m.type, m.text]));
    expect((thread.messages[1] as AIMessage).tool_calls).toEqual([
      expect.objectContaining({ id: "c1", name: "ls", args: { path: "/" } }),
    ]);
    expect((thread.messages[2] as ToolMessage).tool_call_id).toBe("c1");
  });

  it("reads serialized message instances (JSON.stringify of BaseMessage)", () => {
    const thread = parseThread(JSON.stringify({ messages: [new SystemMessage("s"), new AIMessage("x")] }), "inline");
    expect(thread.messages.map((m) => [m.type, m.text])).toEqual([
      ["system", "s"],
      ["ai", "x"],
    ]);
    expect(thread.id).toBe("inline");
  });

  it("reads OpenAI chat messages; unparsable arguments become invalid_tool_calls", () => {
    const path = write("openai.json", [
      { role: "system", content: "sys" },
      { role: "user", content: "book it" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "a", type: "function", function: { name: "book", arguments: '{"seat":"12A"}' } },
          { id: "b", type: "function", function: { name: "book", arguments: '{"seat":"1' } },
          { id: "c", type: "function", function: { name: "book", arguments: "[1,2]" } },
        ],
      },
      { role: "tool", tool_call_id: "a", content: "booked" },
      { role: "assistant", content: [{ type: "text", text: "all set" }] },
    ]);
    const thread = loadThread(path);
    expect(thread.messages.map((m) => m.type)).toEqual(["system", "human", "ai", "tool", "ai"]);
    const call = thread.messages[2] as AIMessage;
    expect(call.text).toBe("");
    expect(call.tool_calls).toEqual([{ type: "tool_call", id: "a", name: "book", args: { seat: "12A" } }]);
    expect(call.invalid_tool_calls).toEqual([
      expect.objectContaining({
        id: "b",
        name: "book",
        args: '{"seat":"1',
        error: expect.stringContaining("not valid JSON"),
      }),
      expect.objectContaining({
        id: "c",
        name: "book",
        args: "[1,2]",
        error: expect.stringContaining("not a JSON object"),
      }),
    ]);
    expect(thread.messages[4]!.text).toBe("all set");
  });
});

describe("loadThread errors", () => {
  const bad: Array<[string, unknown, string]> = [
    ["bad-json.json", '{"messages": [', "bad JSON"],
    ["no-messages.json", { id: "x", turns: [] }, "no messages array"],
    ["messages-not-array.json", { messages: "hello" }, "no messages array"],
    [
      "unknown-shape.json",
      [
        { type: "human", content: "ok" },
        { speaker: "bob", text: "hi" },
      ],
      "message 1 has unknown shape",
    ],
    ["not-object.json", [42], "message 0 is a number"],
    ["unknown-type.json", [{ type: "robot", content: "x" }], 'message 0 has unknown type "robot"'],
    ["unknown-role.json", [{ role: "narrator", content: "x" }], 'message 0 has unknown role "narrator"'],
    ["tool-without-id.json", [{ type: "tool", content: "x" }], "message 0 is a tool message without a tool_call_id"],
    ["bad-content.json", [{ type: "human", content: 5 }], "message 0 has content that is a number"],
    [
      "bad-tool-calls.json",
      [{ type: "ai", content: "", tool_calls: [{ args: {} }] }],
      "message 0 has tool call 0 without a name",
    ],
    ["bad-stored.json", [{ type: "tool", data: { content: "x" } }], "message 0 could not be converted"],
  ];

  for (const [name, content, reason] of bad) {
    it(`${name}: ${reason}`, () => {
      const path = write(name, content);
      let error: unknown;
      try {
        loadThread(path);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ThreadLoadError);
      const loadError = error as ThreadLoadError;
      expect(loadError.file).toBe(path);
      expect(loadError.reason).toContain(reason);
      expect(loadError.message).toContain(path);
      expect(loadError.message).not.toContain("\n");
    });
  }

  it("a missing file is a ThreadLoadError too", () => {
    const path = join(dir, "does-not-exist.json");
    expect(() => loadThread(path)).toThrow(ThreadLoadError);
    expect(() => loadThread(path)).toThrow(/cannot read the file/);
  });
});

// The shared replay corpus sits beside the repository (shared/evaldata); absent on some machines.
const evaldata =
  process.env.HARNESS_KIT_EVALDATA ?? fileURLToPath(new URL("../../../shared/evaldata", import.meta.url));
const threadsDir = join(evaldata, "threads");
const hasEvaldata = existsSync(join(evaldata, "index.json")) && existsSync(threadsDir);
if (!hasEvaldata)
  console.log(
    `test/testing/threads.test.ts: "shared evaldata corpus" skipped: no index.json and threads/ in ${evaldata} (set HARNESS_KIT_EVALDATA to another copy)`,
  );

interface IndexEntry {
  thread: string;
  outcome: unknown;
  tool_calls: number;
  messages: number;
}

describe.skipIf(!hasEvaldata)("shared evaldata corpus", () => {
  const index = hasEvaldata
    ? (JSON.parse(readFileSync(join(evaldata, "index.json"), "utf8")) as { threads: IndexEntry[] })
    : { threads: [] };
  const byThread = new Map(index.threads.map((entry) => [entry.thread, entry]));

  it("loads one thread of each source as the index describes it", () => {
    const sources = readdirSync(threadsDir).sort();
    expect(sources).toHaveLength(4);
    for (const source of sources) {
      const file = readdirSync(join(threadsDir, source))
        .filter((f) => f.endsWith(".json"))
        .sort()[0]!;
      const thread = loadThread(join(threadsDir, source, file));
      const entry = byThread.get(`${source}/${thread.id}`);
      expect(entry, `${source}/${file} is in index.json`).toBeDefined();
      expect(thread.id).toBe(basename(file, ".json"));
      expect(thread.messages).toHaveLength(entry!.messages);
      expect(thread.messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []) : []))).toHaveLength(
        entry!.tool_calls,
      );
      expect(thread.outcome).toEqual(entry!.outcome);
    }
  });

  it("loads every thread, matching the index, with tool calls paired", () => {
    const started = performance.now();
    const threads = loadThreads(threadsDir);
    const loadMs = performance.now() - started;

    expect(threads).toHaveLength(index.threads.length);
    let messageCount = 0;
    for (const thread of threads) {
      const source = basename(join(thread.source, ".."));
      const entry = byThread.get(`${source}/${thread.id}`);
      expect(entry, thread.source).toBeDefined();
      expect(thread.messages.length, thread.source).toBe(entry!.messages);
      assertToolCallPairing(thread.messages);
      messageCount += thread.messages.length;
    }
    console.log(`loaded ${threads.length} threads (${messageCount} messages) in ${loadMs.toFixed(0)} ms`);
  });
});
