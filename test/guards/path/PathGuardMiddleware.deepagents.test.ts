import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createDeepAgent, FilesystemBackend } from "deepagents";
import { afterAll, describe, expect, it } from "vitest";
import { readMark } from "../../../src/core/marks.js";
import type { Signal } from "../../../src/core/signals.js";
import { PathGuardMiddleware, type PathGuardOptions } from "../../../src/guards/path/PathGuardMiddleware.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { attacks, legitimate } from "./pathCorpus.js";
import { makePathTree, SECRET_MARK } from "./pathTree.js";
import { writeLandings } from "./toolReaders.js";

const tree = makePathTree();
afterAll(() => tree.cleanup());

/** deepagents' own file tools; grep's `pattern` is search text, so only its directory and glob filter are paths. */
const DEEPAGENT_FILE_TOOLS: PathGuardOptions["tools"] = {
  read_file: true,
  write_file: true,
  edit_file: true,
  delete: true,
  ls: true,
  glob: true,
  grep: ["path", "glob"],
};

async function runDeep(turns: ScriptedTurn[], guard: Partial<PathGuardOptions> | false, virtualMode = false) {
  const signals: Signal[] = [];
  const middleware =
    guard === false
      ? []
      : [
          new PathGuardMiddleware({
            roots: [tree.data],
            baseDir: tree.data,
            tools: DEEPAGENT_FILE_TOOLS,
            onSignal: (s) => signals.push(s),
            ...guard,
          }),
        ];
  const agent = createDeepAgent({
    model: new ScriptedChatModel({ turns }),
    backend: new FilesystemBackend({ rootDir: tree.data, virtualMode }),
    middleware,
  });
  const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 100_000 });
  const messages = result.messages as BaseMessage[];
  assertToolCallPairing(messages);
  const answers = messages.filter(ToolMessage.isInstance);
  const ranIds = new Set(
    answers.filter((m) => readMark(m)?.guard !== "PathGuardMiddleware").map((m) => m.tool_call_id),
  );
  const ran = messages
    .flatMap((m) => (m as { tool_calls?: Array<{ id: string; name: string; args: unknown }> }).tool_calls ?? [])
    .filter((c) => ranIds.has(c.id));
  return {
    ran: ran.map((c) => `${c.name} ${JSON.stringify(c.args)}`),
    answers: answers.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))),
    refused: answers.filter((m) => readMark(m)?.guard === "PathGuardMiddleware").length,
    calls: answers.length,
    signals,
  };
}

/** What in a tool's answer shows the outside: a secret's text, or a listed entry below a directory outside the root. */
function leakIn(answer: string): boolean {
  if (answer.includes(SECRET_MARK)) return true;
  const outside = [
    tree.secret,
    join(tree.top, "outside"),
    join(tree.top, "data-private"),
    "/etc/",
    "/usr/",
    "/root/",
    "/bin/",
  ];
  // ls and glob answer one entry per line; refusals and errors only quote the path they were given
  return answer.split("\n").some((line) => outside.some((dir) => line.startsWith(dir)));
}

/** Writes are only sent where every tool reading would land inside the test's own directory, even if the guard failed. */
const writesStayInTree = (p: string) =>
  writeLandings(p, tree.data).every((landing) => landing === undefined || landing.startsWith(`${tree.top}/`));

const escapes: ScriptedTurn = {
  toolCalls: [
    { name: "read_file", args: { file_path: "link-out/passwd" } },
    { name: "read_file", args: { file_path: join(tree.top, "data-private", "secret.txt") } },
    { name: "write_file", args: { file_path: "dangling-out", content: "pwned" } },
    { name: "glob", args: { pattern: "*", path: "nested/deep/escape" } },
    { name: "glob", args: { pattern: "../outside/*" } },
    { name: "read_file", args: { file_path: "current/../../outside/secret.txt" } },
    { name: "write_file", args: { file_path: "current/../../outside/new.txt", content: "pwned" } },
  ],
};

describe("PathGuardMiddleware inside createDeepAgent with a FilesystemBackend", () => {
  it("without it, the backend's non-virtual mode follows the paths out of its root", async () => {
    const { answers } = await runDeep([escapes, { text: "done" }], false);
    expect(answers[0]).toContain("root:x:0:0");
    expect(answers[1]).toContain("private");
    expect(answers[2]).toContain("Symlinks are not allowed"); // its writes refuse a symlinked leaf (O_NOFOLLOW)
    expect(answers[3]).toContain("escape/passwd"); // glob listed the outside directory
    expect(answers[4]).toContain("outside/secret.txt"); // glob's pattern walked out of the root
    expect(answers[5]).toContain("hk-secret-content outside"); // .. after the in-root symlink, joined lexically
    expect(existsSync(join(tree.top, "outside", "new.txt"))).toBe(true);
  });

  it("with it, every escape is refused and every legitimate call runs", async () => {
    const { answers, signals } = await runDeep(
      [
        escapes,
        {
          toolCalls: [
            { name: "read_file", args: { file_path: "docs/report..final.md" } },
            { name: "write_file", args: { file_path: "drafts/new.md", content: "draft" } },
          ],
        },
        { text: "done" },
      ],
      {},
    );
    expect(answers.slice(0, 7).every((a) => a.includes("was not run: "))).toBe(true);
    expect(signals.map((s) => s.tool)).toEqual([
      "read_file",
      "read_file",
      "write_file",
      "glob",
      "glob",
      "read_file",
      "write_file",
    ]);
    expect(answers[7]).toContain("report");
    expect(existsSync(join(tree.data, "drafts", "new.md"))).toBe(true);
  });

  it("refuses ls and grep without a directory: their default is the host's root in non-virtual mode", async () => {
    const { answers } = await runDeep(
      [
        {
          toolCalls: [
            { name: "ls", args: {} },
            { name: "grep", args: { pattern: "root:x" } },
          ],
        },
        { text: "done" },
      ],
      {},
    );
    expect(answers.every((a) => a.includes('path "/" in "path" (the value'))).toBe(true);
  });

  it("0 escapes and every attack refused: reads, listings, globs and greps of the whole attack corpus, writes where safe to try", async () => {
    const before = tree.outsideSnapshot();
    const turns: ScriptedTurn[] = attacks(tree).map(({ path }) => ({
      toolCalls: [
        { name: "read_file", args: { file_path: path } },
        { name: "ls", args: { path } },
        { name: "glob", args: { pattern: "*", path } },
        { name: "glob", args: { pattern: path } },
        { name: "grep", args: { pattern: SECRET_MARK, path } },
        ...(writesStayInTree(path)
          ? [
              { name: "write_file", args: { file_path: path, content: "pwned" } },
              { name: "edit_file", args: { file_path: path, old_string: SECRET_MARK, new_string: "pwned" } },
            ]
          : []),
      ],
    }));
    const { answers, refused, calls, ran } = await runDeep([...turns, { text: "done" }], {});
    expect(answers.filter(leakIn)).toEqual([]);
    expect(ran).toEqual([]);
    expect(refused).toBe(calls);
    expect(calls).toBeGreaterThan(1_500);
    expect(tree.outsideSnapshot()).toEqual(before);
  }, 180_000);

  it("0 legitimate paths refused: every file tool runs with every legitimate path", async () => {
    const before = tree.outsideSnapshot();
    const turns: ScriptedTurn[] = legitimate(tree).map(({ path }) => ({
      toolCalls: [
        { name: "read_file", args: { file_path: path } },
        { name: "ls", args: { path } },
        { name: "glob", args: { pattern: "*", path } },
        { name: "grep", args: { pattern: "report", path, glob: "*.md" } },
        ...(writesStayInTree(path) ? [{ name: "write_file", args: { file_path: path, content: "written" } }] : []),
      ],
    }));
    const { answers, refused, signals } = await runDeep([...turns, { text: "done" }], {});
    expect(signals.map((s) => `${s.tool}: ${JSON.stringify(s.detail)}`)).toEqual([]);
    expect(refused).toBe(0);
    expect(answers.filter(leakIn)).toEqual([]);
    expect(tree.outsideSnapshot()).toEqual(before);
  }, 180_000);

  it("in virtual mode (virtualPaths), paths below the root run and escapes are refused or harmless", async () => {
    const virtualLegit = legitimate(tree)
      .filter((l) => !l.path.startsWith("/") && !l.path.startsWith("file:") && !/^\s|\s$|^~|\\/.test(l.path))
      .map((l) => `/${relative(".", l.path)}`);
    const turns: ScriptedTurn[] = [
      ...virtualLegit.map((path) => ({
        toolCalls: [
          { name: "read_file", args: { file_path: path } },
          { name: "ls", args: { path } },
          { name: "glob", args: { pattern: "*", path } },
        ],
      })),
      {
        toolCalls: [
          { name: "ls", args: {} },
          { name: "glob", args: { pattern: "/**/*.md" } },
        ],
      },
    ];
    const legit = await runDeep([...turns, { text: "done" }], { virtualPaths: true }, true);
    expect(legit.signals.map((s) => `${s.tool}: ${JSON.stringify(s.detail)}`)).toEqual([]);
    const attackTurns: ScriptedTurn[] = attacks(tree).map(({ path }) => ({
      toolCalls: [
        { name: "read_file", args: { file_path: path } },
        { name: "glob", args: { pattern: path } },
        { name: "ls", args: { path } },
      ],
    }));
    const attacked = await runDeep([...attackTurns, { text: "done" }], { virtualPaths: true }, true);
    expect(attacked.answers.filter(leakIn)).toEqual([]);
    expect(attacked.refused).toBeGreaterThan(attacked.calls / 2);
  }, 180_000);
});
