import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDeepAgent, FilesystemBackend } from "deepagents";
import { createAgent } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ToolResultBudgetMiddleware } from "../../../src/guards/budget/ToolResultBudgetMiddleware.js";
import { AgentFilesOffloadStore } from "../../../src/offload/AgentFilesOffloadStore.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { pathIn, readFileTurn, readStoredTurn } from "../../e2e/offloadKeys.js";

const lines = (count: number) =>
  Array.from({ length: count }, (_, i) => `row ${i} value=${(i * 7919) % 10007}`).join("\n");
const BIG = lines(5000); // about 100,000 characters: over ours (20,000) and over deepagents' 80,000
const MEDIUM = lines(4300); // about 84,000 characters

const bigTool = tool(async () => BIG, {
  name: "export_table",
  description: "Exports the table.",
  schema: z.object({}),
});
const mediumTool = tool(async () => MEDIUM, {
  name: "export_medium",
  description: "Exports part of the table.",
  schema: z.object({}),
});

function toolTexts(messages: BaseMessage[]): string[] {
  return messages
    .filter((m) => ToolMessage.isInstance(m))
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

/** Each tool answer's text, its blocks' texts joined (deepagents' read_file answers in blocks). */
function plainTexts(messages: BaseMessage[]): string[] {
  return messages
    .filter((m) => ToolMessage.isInstance(m))
    .map((m) =>
      typeof m.content === "string" ? m.content : m.content.map((b) => ("text" in b ? String(b.text) : "")).join(""),
    );
}

async function runDeep(turns: ScriptedTurn[], budget: ToolResultBudgetMiddleware, backend?: FilesystemBackend) {
  const model = new ScriptedChatModel({ turns });
  const agent = createDeepAgent({
    model,
    tools: [bigTool, mediumTool],
    middleware: [budget],
    ...(backend ? { backend } : {}),
  });
  const result = (await agent.invoke({ messages: [new HumanMessage("export")] })) as {
    messages: BaseMessage[];
    files?: Record<string, { content: unknown }>;
  };
  assertToolCallPairing(result.messages);
  return { result, model };
}

describe("ToolResultBudgetMiddleware inside createDeepAgent", () => {
  it("offloads into the agent's own files, so read_file pages through the result", async () => {
    const budget = new ToolResultBudgetMiddleware({ store: new AgentFilesOffloadStore() });
    const { result } = await runDeep(
      [
        { toolCalls: [{ name: "export_table", args: {}, id: "call_export" }] },
        readFileTurn({ offset: 2500, limit: 3 }),
        { text: "done" },
      ],
      budget,
    );
    const path = pathIn(result.messages);
    expect(path).toMatch(/^\/large_tool_results\/export_table-call_export-[0-9a-f]{16}\.txt$/);
    const [preview, page] = toolTexts(result.messages);
    expect(preview!.length).toBeLessThanOrEqual(20_000);
    expect(preview).toContain(`use read_file with file_path "${path}"`);
    expect(preview).not.toContain("Tool result too large");
    expect(result.files?.[path]?.content).toBe(BIG);
    expect(page).toContain("row 2500 value=");
    expect(page).toContain("row 2502 value=");
    expect(page).not.toContain("row 2503 value=");
  });

  it("acts before deepagents' eviction: a result over our limit never reaches it", async () => {
    const budget = new ToolResultBudgetMiddleware({ store: new AgentFilesOffloadStore() });
    const { result } = await runDeep(
      [{ toolCalls: [{ name: "export_table", args: {}, id: "call_a" }] }, { text: "done" }],
      budget,
    );
    const [preview] = toolTexts(result.messages);
    expect(preview).toContain("[export_table returned");
    expect(Object.keys(result.files ?? {})).toEqual([pathIn(result.messages)]);
    expect(pathIn(result.messages)).toMatch(/^\/large_tool_results\/export_table-call_a-/);
  });

  it("leaves to deepagents what it lets through: excluded tools, and results between our limit and 80,000 characters", async () => {
    const budget = new ToolResultBudgetMiddleware({
      limit: 90_000,
      excludeTools: ["export_table"],
      store: new AgentFilesOffloadStore(),
    });
    const { result } = await runDeep(
      [
        {
          toolCalls: [
            { name: "export_table", args: {}, id: "call_excluded" },
            { name: "export_medium", args: {}, id: "call_medium" },
          ],
        },
        { text: "done" },
      ],
      budget,
    );
    const [excluded, medium] = toolTexts(result.messages);
    // deepagents evicts both (over its 80,000 characters); ours did not act on either.
    expect(excluded).toContain("Tool result too large");
    expect(medium).toContain("Tool result too large");
    expect(excluded).not.toContain("read_stored_result");
    expect(Object.keys(result.files ?? {}).sort()).toEqual([
      "/large_tool_results/call_excluded.txt",
      "/large_tool_results/call_medium.txt",
    ]);
  });

  it("offers its own retrieval tool beside read_file, reading from the agent's files", async () => {
    const budget = new ToolResultBudgetMiddleware({ limit: 5000, store: new AgentFilesOffloadStore() });
    const { result, model } = await runDeep(
      [
        { toolCalls: [{ name: "export_table", args: {}, id: "call_r" }] },
        readStoredTurn({ pattern: "^row 4999 " }),
        { text: "done" },
      ],
      budget,
    );
    // offered once a result is stored there (see test/guards/budget/retrievalTool.createAgent.test.ts)
    expect(model.toolBindings[1]).toEqual(expect.arrayContaining(["read_stored_result", "read_file"]));
    const [, found] = toolTexts(result.messages);
    expect(found).toContain("1 line matches");
    expect(found).toContain("5000: row 4999 value=");
  });

  it("points a result that is one long line (minified JSON) at read_stored_result, which reads on inside the line", async () => {
    // read_file reads whole lines: past the first 20,000 characters of a one-line file it cannot read on.
    const minified = JSON.stringify({ rows: Array.from({ length: 6000 }, (_, i) => ({ i, v: `val${i}` })) });
    const oneLine = tool(async () => minified, {
      name: "export_json",
      description: "Exports JSON.",
      schema: z.object({}),
    });
    const follow: ScriptedTurn = (messages) => {
      const text = plainTexts(messages).at(-1)!;
      const hint = /call read_stored_result with key "([^"]+)" and offset (\d+)/.exec(text);
      return hint
        ? { toolCalls: [{ name: "read_stored_result", args: { key: hint[1], offset: Number(hint[2]) } }] }
        : { text: `no way to read on: ${text.slice(-300)}` };
    };
    const readTheFile: ScriptedTurn = (messages) => {
      const key = /key "([^"]+)"/.exec(toolTexts(messages)[0]!)![1];
      return {
        toolCalls: [{ name: "read_file", args: { file_path: `/large_tool_results/${key}.txt`, offset: 0, limit: 1 } }],
      };
    };
    const model = new ScriptedChatModel({
      turns: [{ toolCalls: [{ name: "export_json", args: {} }] }, follow, readTheFile, follow],
    });
    const agent = createDeepAgent({
      model,
      tools: [oneLine],
      middleware: [new ToolResultBudgetMiddleware({ store: new AgentFilesOffloadStore() })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("export")] });
    assertToolCallPairing(result.messages);
    const [preview, page, readFile, readOn] = plainTexts(result.messages);
    const from = Number(/starts at character (\d+)/.exec(preview!)![1]);
    expect(page).toContain(`[Characters ${from} to `);
    expect(page).toContain(minified.slice(from, from + 1000));
    // A read_file of the file, cut to the budget, reads on inside the line too, where it stopped.
    const shown = Number(/only its first (\d+) characters are shown/.exec(readFile!)![1]);
    expect(readFile).toContain(minified.slice(shown - 500, shown));
    expect(readOn).toContain(`[Characters ${shown} to `);
    expect(readOn).toContain(minified.slice(shown, shown + 1000));
  });

  describe("with a FilesystemBackend", () => {
    let root: string;
    afterAll(async () => {
      if (root) await rm(root, { recursive: true, force: true });
    });

    it("writes through the backend the agent reads with", async () => {
      root = await mkdtemp(join(tmpdir(), "harness-kit-deep-"));
      const backend = new FilesystemBackend({ rootDir: root, virtualMode: true });
      const budget = new ToolResultBudgetMiddleware({ store: new AgentFilesOffloadStore({ backend }) });
      const { result } = await runDeep(
        [
          { toolCalls: [{ name: "export_table", args: {}, id: "call_fs" }] },
          readFileTurn({ offset: 4998, limit: 5 }),
          { text: "done" },
        ],
        budget,
        backend,
      );
      // A backend may be shared by threads: the result sits in this thread's folder.
      const path = pathIn(result.messages);
      expect(path).toMatch(/^\/large_tool_results\/no-thread\/export_table-call_fs-[0-9a-f]{16}\.txt$/);
      expect(await readFile(join(root, path), "utf8")).toBe(BIG);
      expect(toolTexts(result.messages)[1]).toContain("row 4999 value=");
    });
  });

  it("in a plain createAgent the agent-files store cannot write, so the result is cut with a notice", async () => {
    const model = new ScriptedChatModel({
      turns: [{ toolCalls: [{ name: "export_table", args: {} }] }, { text: "done" }],
    });
    const agent = createAgent({
      model,
      tools: [bigTool],
      middleware: [new ToolResultBudgetMiddleware({ store: new AgentFilesOffloadStore() })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("export")] });
    const [text] = toolTexts(result.messages);
    expect(text).toContain("were not kept (storing them failed: AgentFilesOffloadStore: this agent has no files state");
    expect(result.messages.at(-1)!.content).toBe("done");
  });
});
