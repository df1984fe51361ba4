import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CompositeBackend, createDeepAgent, FilesystemBackend, StateBackend, StoreBackend } from "deepagents";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { InMemoryStore } from "@langchain/langgraph";
import { z } from "zod";
import { recommendedGuards, type RecommendedGuardsOptions } from "../../src/index.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { pathIn } from "./offloadKeys.js";

/** Issue 28, item 3: what the budget stores in a deep agent is read back with the agent's own read_file, whatever its backend. */

const LOG = Array.from({ length: 4_000 }, (_, i) => `${String(i).padStart(5, "0")} request ok ${"x".repeat(30)}`).join("\n"); // about 190,000 characters
const exportLogs = tool(async () => LOG, { name: "export_logs", description: "Exports the logs.", schema: z.object({}) });

const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const answers = (messages: readonly BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

type Backend = NonNullable<RecommendedGuardsOptions["backend"]>;

async function runDeep(backend: Backend | undefined, turns: ScriptedTurn[], options: RecommendedGuardsOptions = {}, store?: InMemoryStore) {
  const guards = recommendedGuards({ ...options, ...(backend ? { backend } : {}) });
  const model = new ScriptedChatModel({ turns });
  const agent = createDeepAgent({
    model,
    tools: [exportLogs],
    ...(backend ? { backend: backend as never } : {}),
    ...(store ? { store } : {}),
    middleware: guards.deepAgent,
    subagents: [{ name: "general-purpose", description: "General helper", systemPrompt: "You help.", middleware: guards.subagent }],
  });
  const { messages } = (await agent.invoke({ messages: [new HumanMessage("why is it down?")] }, { configurable: { thread_id: "t1" } })) as { messages: BaseMessage[] };
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
    ["FilesystemBackend", async () => {
      root = await mkdtemp(join(tmpdir(), "harness-kit-backends-"));
      return { backend: new FilesystemBackend({ rootDir: root, virtualMode: true }) };
    }],
    ["StoreBackend", async () => ({ backend: new StoreBackend(), store: new InMemoryStore() })],
    ["CompositeBackend", async () => ({ backend: new CompositeBackend(new StateBackend(), { "/memories/": new StoreBackend() }), store: new InMemoryStore() })],
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
        { toolCalls: [{ name: "task", args: { description: "Export the logs and read line 2000", subagent_type: "general-purpose" } }] },
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
