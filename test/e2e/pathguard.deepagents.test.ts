import { existsSync } from "node:fs";
import { join } from "node:path";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createDeepAgent, FilesystemBackend } from "deepagents";
import { afterAll, describe, expect, it } from "vitest";
import type { Signal } from "../../src/core/signals.js";
import { PathGuardMiddleware } from "../../src/middleware/PathGuardMiddleware.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { makePathTree } from "../guards/path/pathTree.js";

const tree = makePathTree();
afterAll(() => tree.cleanup());

/** deepagents' own file tools, with the path arguments they take. */
const DEEPAGENT_FILE_TOOLS = { read_file: true, write_file: true, edit_file: true, delete: true, ls: ["path"], glob: ["path"], grep: ["path"] } as const;

async function runDeep(turns: ScriptedTurn[], guard: boolean) {
  const signals: Signal[] = [];
  const middleware = guard ? [new PathGuardMiddleware({ roots: [tree.data], baseDir: tree.data, tools: DEEPAGENT_FILE_TOOLS, onSignal: (s) => signals.push(s) })] : [];
  // virtualMode off: the backend's legacy mode takes absolute and relative paths as they are
  const agent = createDeepAgent({ model: new ScriptedChatModel({ turns }), backend: new FilesystemBackend({ rootDir: tree.data }), middleware });
  const result = await agent.invoke({ messages: [new HumanMessage("go")] });
  const messages = result.messages as BaseMessage[];
  assertToolCallPairing(messages);
  return { answers: messages.filter(ToolMessage.isInstance).map((m) => JSON.stringify(m.content)), signals };
}

const escapes: ScriptedTurn = {
  toolCalls: [
    { name: "read_file", args: { file_path: "link-out/passwd" } },
    { name: "read_file", args: { file_path: join(tree.top, "data-private", "secret.txt") } },
    { name: "write_file", args: { file_path: "dangling-out", content: "pwned" } },
    { name: "glob", args: { pattern: "*", path: "nested/deep/escape" } },
  ],
};

describe("PathGuardMiddleware inside createDeepAgent with a FilesystemBackend", () => {
  it("without it, the backend's non-virtual mode follows the paths out of its root", async () => {
    const { answers } = await runDeep([escapes, { text: "done" }], false);
    expect(answers[0]).toContain("root:x:0:0");
    expect(answers[1]).toContain("private");
    expect(answers[3]).toContain("escape/passwd"); // glob listed the outside directory
    expect(answers[2]).toContain("Symlinks are not allowed"); // its writes refuse a symlinked leaf (O_NOFOLLOW)
  });

  it("with it, every escape is refused and every legitimate call runs", async () => {
    const { answers, signals } = await runDeep(
      [
        escapes,
        { toolCalls: [{ name: "read_file", args: { file_path: "docs/report..final.md" } }, { name: "write_file", args: { file_path: "drafts/new.md", content: "draft" } }] },
        { text: "done" },
      ],
      true,
    );
    expect(answers.slice(0, 4).every((a) => a.includes("was not run: path"))).toBe(true);
    expect(signals.map((s) => s.tool)).toEqual(["read_file", "read_file", "write_file", "glob"]);
    expect(answers[4]).toContain("report");
    expect(existsSync(join(tree.data, "drafts", "new.md"))).toBe(true);
  });
});
