import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CompositeBackend, createDeepAgent, FilesystemBackend, StateBackend, StoreBackend } from "deepagents";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { InMemoryStore } from "@langchain/langgraph";
import { z } from "zod";
import { recommendedGuards, type RecommendedGuardsOptions } from "../../../src/index.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { pathIn } from "../../e2e/offloadKeys.js";

/** Issue 28, item 3: what the budget stores in a deep agent is read back with the agent's own read_file, whatever its backend. */

const LOG = Array.from({ length: 4_000 }, (_, i) => `${String(i).padStart(5, "0")} request ok ${"x".repeat(30)}`).join(
  "\n",
); // about 190,000 characters
const exportLogs = tool(async () => LOG, {
  name: "export_logs",
  description: "Exports the logs.",
  schema: z.object({}),
});

/** What the model reads of a message: its text, or its text blocks joined. */
const text = (m: BaseMessage) =>
  typeof m.content === "string"
    ? m.content
    : m.content
        .map((block) => (block.type === "text" ? String((block as { text: unknown }).text) : JSON.stringify(block)))
        .join("\n");
const answers = (messages: readonly BaseMessage[]) =>
  messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

type Backend = NonNullable<RecommendedGuardsOptions["backend"]>;

async function runDeep(
  backend: Backend | undefined,
  turns: ScriptedTurn[],
  options: RecommendedGuardsOptions = {},
  store?: InMemoryStore,
) {
  const guards = recommendedGuards({ ...options, ...(backend ? { backend } : {}) });
  const model = new ScriptedChatModel({ turns });
  const agent = createDeepAgent({
    model,
    tools: [exportLogs],
    ...(backend ? { backend: backend as never } : {}),
    ...(store ? { store } : {}),
    middleware: guards.deepAgent,
    subagents: [
      {
        name: "general-purpose",
        description: "General helper",
        systemPrompt: "You help.",
        middleware: guards.subagent,
      },
    ],
  });
  const { messages } = (await agent.invoke(
    { messages: [new HumanMessage("why is it down?")] },
    { configurable: { thread_id: "t1" } },
  )) as { messages: BaseMessage[] };
  assertToolCallPairing(messages);
  return answers(messages);
}

describe("a stored result is readable with the agent's own read_file, whatever the backend", () => {
  let root = "";
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  const backends: Array<[string, () => Promise<{ backend: Backend | undefined; store?: InMemoryStore }>]> = [
    ["the default (no backend given)", async () => ({ backend: undefined })],
    ["StateBackend", async () => ({ backend: new StateBackend() })],
    [
      "FilesystemBackend",
      async () => {
        root = await mkdtemp(join(tmpdir(), "harness-kit-backends-"));
        return { backend: new FilesystemBackend({ rootDir: root, virtualMode: true }) };
      },
    ],
    ["StoreBackend", async () => ({ backend: new StoreBackend(), store: new InMemoryStore() })],
    [
      "CompositeBackend",
      async () => ({
        backend: new CompositeBackend(new StateBackend(), { "/memories/": new StoreBackend() }),
        store: new InMemoryStore(),
      }),
    ],
  ];

  it.each(backends)("%s", async (_name, make) => {
    const { backend, store } = await make();
    const [preview, page] = await runDeep(
      backend,
      [
        { toolCalls: [{ name: "export_logs", args: {} }] },
        (seen) => ({ toolCalls: [{ name: "read_file", args: { file_path: pathIn(seen), offset: 2000, limit: 3 } }] }),
        { text: "done" },
      ],
      {},
      store,
    );
    expect(text(preview!)).toMatch(/read_file with file_path "\/large_tool_results\/[^"]*export_logs-[^"]+\.txt"/);
    expect(text(page!)).not.toMatch(/ENOENT|Error:|not found/i);
    expect(text(page!)).toContain("02000 request ok");
    expect(text(page!)).toContain("02002 request ok");
  });

  it("inside a task subagent too (guards.subagent), with a FilesystemBackend", async () => {
    const dir = await mkdtemp(join(tmpdir(), "harness-kit-subagent-"));
    try {
      const backend = new FilesystemBackend({ rootDir: dir, virtualMode: true });
      const tools = await runDeep(backend, [
        {
          toolCalls: [
            {
              name: "task",
              args: { description: "Export the logs and read line 2000", subagent_type: "general-purpose" },
            },
          ],
        },
        { toolCalls: [{ name: "export_logs", args: {} }] },
        (seen) => ({ toolCalls: [{ name: "read_file", args: { file_path: pathIn(seen), offset: 2000, limit: 1 } }] }),
        (seen) => ({ text: text(seen.at(-1)!) }),
        { text: "done" },
      ]);
      expect(text(tools.find((m) => m.name === "task")!)).toContain("02000 request ok");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("reading back what the budget stored delivers it, in windows that fit (issue 28)", () => {
  /** 1,000 lines of 400 characters: a 100-line read_file page is about 41,000 characters, twice the budget. */
  const WIDE = Array.from({ length: 1_000 }, (_, i) => `${String(i).padStart(5, "0")} ${"w".repeat(394)}`).join("\n");
  const readWide = tool(async () => "unused", { name: "noop", description: "Does nothing.", schema: z.object({}) });
  const BUDGET = 20_000;

  /**
   * Reads on as a model would: the window the last answer's note names, else read_file's own
   * "next offset" with the same window; `defaultWindow` drops the limit (read_file's 100 lines).
   */
  function follow(defaultWindow: boolean): ScriptedTurn {
    let path = "";
    let limit = 0;
    return (seen) => {
      const last = text(seen.at(-1)!);
      const window = /read_file with file_path "([^"]+)", offset (\d+) and limit (\d+)/.exec(last);
      const next = /^@@ lines \d+-\d+ of \d+ \| next offset (\d+) @@$/m.exec(last);
      if (window) [path, limit] = [window[1]!, Number(window[3])];
      const offset = window ? Number(window[2]) : next && path ? Number(next[1]) : undefined;
      if (offset === undefined) return { text: "done" };
      return {
        toolCalls: [{ name: "read_file", args: { file_path: path, offset, ...(defaultWindow ? {} : { limit }) } }],
      };
    };
  }

  async function readThrough(defaultWindow: boolean) {
    const guards = recommendedGuards();
    const turns: ScriptedTurn[] = [{ toolCalls: [{ name: "read_file", args: { file_path: "/data/wide.txt" } }] }];
    const reader = follow(defaultWindow);
    for (let i = 0; i < 60; i++) turns.push(reader);
    const model = new ScriptedChatModel({ turns });
    const agent = createDeepAgent({ model, tools: [readWide], middleware: guards.deepAgent });
    const now = new Date().toISOString();
    const files = { "/data/wide.txt": { content: WIDE, mimeType: "text/plain", created_at: now, modified_at: now } };
    const result = (await agent.invoke({ messages: [new HumanMessage("read it")], files } as never, {
      recursionLimit: 500,
    })) as { messages: BaseMessage[]; files: Record<string, unknown> };
    assertToolCallPairing(result.messages);
    return { reads: answers(result.messages), files: Object.keys(result.files) };
  }

  it.each([
    ["the window the footer names", false],
    ["read_file's default window", true],
  ] as const)(
    "following %s delivers every line, stores one file and fits every answer",
    async (_name, defaultWindow) => {
      const { reads, files } = await readThrough(defaultWindow);
      // The first page is stored once; reading it back never stores again.
      expect(files.filter((path) => path.startsWith("/large_tool_results/"))).toHaveLength(1);
      for (const read of reads) expect(text(read).length).toBeLessThanOrEqual(BUDGET + 200);
      const shown = new Set(
        reads.flatMap((read) => [...text(read).matchAll(/^(\d{5}) w{394}$/gm)].map((m) => Number(m[1]))),
      );
      for (let line = 0; line < 100; line++) expect(shown.has(line), `line ${line}`).toBe(true);
    },
  );

  it("the first footer names a read_file window whose answer fits the budget", async () => {
    const { reads } = await readThrough(false);
    const footer = /read_file with file_path "[^"]+", offset (\d+) and limit (\d+)/.exec(text(reads[0]!));
    expect(footer).not.toBeNull();
    expect(Number(footer![2]) * 401).toBeLessThanOrEqual(BUDGET);
    expect(text(reads[1]!)).not.toContain("returned");
  });
});
