import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { FilesystemBackend } from "deepagents";
import fc from "fast-check";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidOptionsError } from "../../../src/core/errors.js";
import { readMark } from "../../../src/core/marks.js";
import type { Signal } from "../../../src/core/signals.js";
import { PathGuardMiddleware, type PathGuardOptions } from "../../../src/guards/path/PathGuardMiddleware.js";
import { ToolCallRepairMiddleware } from "../../../src/guards/repair/ToolCallRepairMiddleware.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { attacks, legitimate } from "./pathCorpus.js";
import { makePathTree } from "./pathTree.js";
import { readLeaks, TOOL_READERS, writeProbe } from "./toolReaders.js";

const tree = makePathTree();
afterAll(() => tree.cleanup());

/** Real filesystem tools that resolve relative paths against the tree's root, recording what they touch. */
function fsTools() {
  const touched: string[] = [];
  const at = (p: string) => (isAbsolute(p) ? p : join(tree.data, p));
  const read = tool(async ({ path }: { path: string }) => (touched.push(path), readFileSync(at(path), "utf8")), {
    name: "read_file",
    description: "read a file",
    schema: z.object({ path: z.string() }),
  });
  const write = tool(
    async ({ file_path, content }: { file_path: string; content: string }) => (
      touched.push(file_path),
      writeFileSync(at(file_path), content),
      "written"
    ),
    {
      name: "write_file",
      description: "write a file",
      schema: z.object({ file_path: z.string(), content: z.string() }),
    },
  );
  const copy = tool(
    async ({ files }: { files: Array<{ src: string; dest: string }> }) => (
      touched.push(...files.flatMap((f) => [f.src, f.dest])),
      "copied"
    ),
    {
      name: "copy_files",
      description: "copy files",
      schema: z.object({ files: z.array(z.object({ src: z.string(), dest: z.string() })) }),
    },
  );
  const many = tool(async ({ paths }: { paths: string[][] }) => (touched.push(...paths.flat()), "read"), {
    name: "read_many",
    description: "read groups of files",
    schema: z.object({ paths: z.array(z.array(z.string())) }),
  });
  const edit = tool(async ({ options }: { options: { path: string } }) => (touched.push(options.path), "edited"), {
    name: "edit",
    description: "edit a file",
    schema: z.object({ options: z.object({ path: z.string() }) }),
  });
  const move = tool(
    async ({ old_path, new_path }: { old_path: string; new_path: string }) => (
      touched.push(old_path, new_path),
      "moved"
    ),
    {
      name: "move_file",
      description: "move a file",
      schema: z.object({ old_path: z.string(), new_path: z.string() }),
    },
  );
  // a real glob: deepagents' own FilesystemBackend.glob, searching below `path` (default: the root)
  const backend = new FilesystemBackend({ rootDir: tree.data });
  const glob = tool(
    async ({ pattern, path }: { pattern: string; path: string }) =>
      JSON.stringify(((await backend.glob(pattern, path)).files ?? []).map((f: { path: string }) => f.path)),
    {
      name: "glob",
      description: "find files",
      schema: z.object({ pattern: z.string(), path: z.string().default("/") }),
    },
  );
  const echo = tool(async ({ path }: { path: string }) => `echo ${path}`, {
    name: "echo",
    description: "not a file tool",
    schema: z.object({ path: z.string() }),
  });
  return { tools: [read, write, copy, many, edit, move, glob, echo], touched };
}

const GUARDED: PathGuardOptions["tools"] = {
  read_file: true,
  write_file: ["file_path"],
  copy_files: true,
  read_many: true,
  edit: true,
  move_file: true,
  glob: true,
};

async function run(turns: ScriptedTurn[], options: Partial<PathGuardOptions> | false = {}) {
  const fs = fsTools();
  const signals: Signal[] = [];
  const middleware =
    options === false
      ? []
      : [
          new PathGuardMiddleware({
            roots: [tree.data],
            baseDir: tree.data,
            tools: GUARDED,
            onSignal: (s) => signals.push(s),
            ...options,
          }),
        ];
  const agent = createAgent({ model: new ScriptedChatModel({ turns }), tools: fs.tools, middleware });
  const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 10_000 });
  const messages = result.messages as BaseMessage[];
  assertToolCallPairing(messages);
  return {
    messages,
    touched: fs.touched,
    signals,
    answers: messages.filter(ToolMessage.isInstance).map((m) => String(m.content)),
  };
}

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({ toolCalls: [{ name, args }] });

describe("PathGuardMiddleware in createAgent", () => {
  it("without it, a symlink inside the project leaks a file outside it", async () => {
    const { answers } = await run([call("read_file", { path: "link-out/passwd" }), { text: "done" }], false);
    expect(answers[0]).toBe("hk-secret-content root:x:0:0");
  });

  it("refuses the read, names the root, signals, and never runs the tool", async () => {
    const { answers, touched, signals } = await run([call("read_file", { path: "link-out/passwd" }), { text: "done" }]);
    expect(touched).toEqual([]);
    expect(answers[0]).toBe(
      `read_file was not run: path "link-out/passwd" in "path" is not allowed because it resolves through a symbolic link to a place outside the allowed directories. Use a plain path inside ${tree.data}.`,
    );
    expect(signals).toEqual([
      expect.objectContaining({
        guard: "PathGuardMiddleware",
        action: "directive",
        reason: "through_symlink",
        tool: "read_file",
        detail: expect.objectContaining({ argument: "path", path: "link-out/passwd" }),
      }),
    ]);
  });

  it("keeps .. after an in-root symlink from reading or writing outside", async () => {
    const before = tree.outsideSnapshot();
    const { answers: unguarded } = await run(
      [call("read_file", { path: "current/../../outside/secret.txt" }), { text: "done" }],
      false,
    );
    expect(unguarded[0]).toBe("hk-secret-content outside"); // the tool joins lexically: the kernel's reading would have stayed inside
    const { answers, touched } = await run([
      {
        toolCalls: [
          { name: "read_file", args: { path: "current/../../outside/secret.txt" } },
          { name: "write_file", args: { file_path: "current/../../outside/new.txt", content: "pwned" } },
        ],
      },
      { text: "done" },
    ]);
    expect(touched).toEqual([]);
    expect(answers.every((a) => a.includes("follows a symbolic link"))).toBe(true);
    expect(tree.outsideSnapshot()).toEqual(before);
  });

  it("keeps a write through a dangling symlink from creating a file outside", async () => {
    const { answers } = await run([
      call("write_file", { file_path: "dangling-out", content: "pwned" }),
      { text: "done" },
    ]);
    expect(answers[0]).toMatch(/^write_file was not run/);
    expect(existsSync(join(tree.secret, "new.txt"))).toBe(false);
  });

  it("lets legitimate paths through to the tool, names with dots included", async () => {
    const { answers, touched } = await run([
      {
        toolCalls: [
          { name: "read_file", args: { path: "docs/report..final.md" } },
          { name: "read_file", args: { path: "link-inside/[...slug].tsx" } },
          { name: "read_file", args: { path: "~old/notes.txt" } },
        ],
      },
      call("write_file", { file_path: "notes/../fresh.md", content: "new" }),
      { text: "done" },
    ]);
    expect(answers).toEqual(["report", "page", "old notes", "written"]);
    expect(touched).toHaveLength(4);
    expect(readFileSync(join(tree.data, "fresh.md"), "utf8")).toBe("new");
  });

  it("walks nested arguments and checks only the configured tools", async () => {
    const { answers, touched } = await run([
      call("copy_files", {
        files: [
          { src: "docs/report..final.md", dest: "copies/a.md" },
          { src: "src/index.ts", dest: "../secret/x" },
        ],
      }),
      call("read_many", { paths: [["docs/a.md"], ["../x"]] }),
      call("edit", { options: { path: "link-out/passwd" } }),
      call("move_file", { old_path: "docs/a.md", new_path: "\u2025/moved.md" }),
      call("echo", { path: "/etc/passwd" }),
      call("copy_files", { files: [{ src: "docs/report..final.md", dest: "copies/b.md" }] }),
      { text: "done" },
    ]);
    expect(answers[0]).toMatch(/^copy_files was not run: path "\.\.\/secret\/x" in "files\[1\]\.dest"/);
    expect(answers[1]).toMatch(/^read_many was not run: path "\.\.\/x" in "paths\[1\]\[0\]"/);
    expect(answers[2]).toMatch(/^edit was not run: path "link-out\/passwd" in "options\.path"/);
    expect(answers[3]).toMatch(
      /^move_file was not run: path "\u2025\/moved\.md" in "new_path" is not allowed because a tool that normalises/,
    );
    expect(answers.slice(4)).toEqual(["echo /etc/passwd", "copied"]);
    expect(touched).toEqual(["docs/report..final.md", "copies/b.md"]);
  });

  it("keeps a real glob from listing outside the root, through its pattern or its directory", async () => {
    const { answers: unguarded } = await run([call("glob", { pattern: "../outside/*" }), { text: "done" }], false);
    expect(unguarded[0]).toContain("outside/secret.txt");
    const { answers } = await run([
      {
        toolCalls: [
          { name: "glob", args: { pattern: "../outside/*" } },
          { name: "glob", args: { pattern: "{docs,..}/*" } },
          { name: "glob", args: { pattern: "*", path: "link-out" } },
          { name: "glob", args: { pattern: "link-out/*" } },
        ],
      },
      call("glob", { pattern: "**/*.md", path: "docs" }),
      { text: "done" },
    ]);
    expect(answers.slice(0, 4).every((a) => a.startsWith("glob was not run"))).toBe(true);
    expect(JSON.parse(answers[4]!)).toEqual(expect.arrayContaining([join(tree.data, "docs", "report..final.md")]));
  });

  it("checks every string inside a listed argument: copy_files with only files listed copies no secret", async () => {
    const copied: string[] = [];
    const copy = tool(
      async ({ files }: { files: Array<{ src: string; dest: string }> }) => {
        for (const { src, dest } of files) {
          writeFileSync(join(tree.data, dest), readFileSync(join(tree.data, src)));
          copied.push(dest);
        }
        return "copied";
      },
      {
        name: "copy_files",
        description: "copy files",
        schema: z.object({ files: z.array(z.object({ src: z.string(), dest: z.string() })) }),
      },
    );
    const signals: Signal[] = [];
    const guard = new PathGuardMiddleware({
      roots: [tree.data],
      baseDir: tree.data,
      tools: { copy_files: ["files"] },
      onSignal: (s) => signals.push(s),
    });
    const turns: ScriptedTurn[] = [
      call("copy_files", { files: [{ src: "../outside/secret.txt", dest: "stolen.txt" }] }),
      call("copy_files", { files: [{ src: "docs/report..final.md", dest: "nested-copy.md" }] }),
      { text: "done" },
    ];
    const agent = createAgent({ model: new ScriptedChatModel({ turns }), tools: [copy], middleware: [guard] });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
    assertToolCallPairing(messages);
    const answers = messages.filter(ToolMessage.isInstance).map((m) => String(m.content));
    expect(answers[0]).toBe(
      `copy_files was not run: path "../outside/secret.txt" in "files[0].src" is not allowed because it resolves outside the allowed directories. Use a plain path inside ${tree.data}.`,
    );
    expect(answers[1]).toBe("copied");
    expect(existsSync(join(tree.data, "stolen.txt"))).toBe(false);
    expect(copied).toEqual(["nested-copy.md"]);
    expect(signals).toEqual([
      expect.objectContaining({
        action: "directive",
        reason: "outside_roots",
        tool: "copy_files",
        detail: expect.objectContaining({ argument: "files[0].src", path: "../outside/secret.txt" }),
      }),
    ]);
  });

  it("checks the arguments as the tool's schema fills them in", async () => {
    // the glob schema's default directory is "/": on this backend the host's root
    const { answers } = await run([call("glob", { pattern: "*.txt" }), { text: "done" }], {
      tools: { glob: ["path"] },
    });
    expect(answers[0]).toBe(
      `glob was not run: path "/" in "path" (the value glob fills in for an argument the call leaves out) is not allowed because it resolves outside the allowed directories. Use a plain path inside ${tree.data}.`,
    );
  });

  it("with rewrite, hands the tool the canonical path and still refuses what no rewrite makes safe", async () => {
    const { answers, touched, signals } = await run(
      [
        {
          toolCalls: [
            { name: "read_file", args: { path: "current/app.txt" } },
            { name: "read_file", args: { path: " spaced.txt" } },
            { name: "read_file", args: { path: "current/../../outside/secret.txt" } },
            { name: "read_file", args: { path: "%2e%2e/secret/passwd" } },
          ],
        },
        { text: "done" },
      ],
      { rewrite: true },
    );
    expect(touched.sort()).toEqual([join(tree.data, " spaced.txt"), join(tree.data, "releases", "v2", "app.txt")]);
    expect(answers.slice(0, 2)).toEqual(["app v2", "spaced"]);
    expect(answers.slice(2).every((a) => a.startsWith("read_file was not run"))).toBe(true);
    expect(signals.filter((s) => s.reason === "path_rewritten")).toEqual([
      expect.objectContaining({
        action: "warn",
        detail: { argument: "path", from: "current/app.txt", to: join(tree.data, "releases", "v2", "app.txt") },
      }),
    ]);
  });

  it("composes with ToolCallRepairMiddleware: a repaired call is path-checked too", async () => {
    const fs = fsTools();
    const agent = createAgent({
      model: new ScriptedChatModel({
        turns: [{ invalidToolCalls: [{ name: "read_file", args: "{'path': 'link-out/passwd'}" }] }, { text: "done" }],
      }),
      tools: fs.tools,
      middleware: [
        new PathGuardMiddleware({ roots: [tree.data], baseDir: tree.data, tools: GUARDED }),
        new ToolCallRepairMiddleware(),
      ],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(fs.touched).toEqual([]);
    expect(String(messages.find(ToolMessage.isInstance)!.content)).toMatch(
      /^read_file was not run: path "link-out\/passwd"/,
    );
  });

  it("in observe-only mode signals the escape and lets the call run", async () => {
    const { touched, signals } = await run([call("read_file", { path: "link-out/passwd" }), { text: "done" }], {
      observeOnly: true,
    });
    expect(touched).toEqual(["link-out/passwd"]);
    expect(signals).toEqual([
      expect.objectContaining({ reason: "through_symlink", detail: expect.objectContaining({ observeOnly: true }) }),
    ]);
  });

  it("refuses bad options with a typed error", () => {
    expect(() => new PathGuardMiddleware({ roots: [], tools: GUARDED })).toThrow(InvalidOptionsError);
    expect(() => new PathGuardMiddleware({ roots: [tree.data], tools: {} })).toThrow(InvalidOptionsError);
    expect(() => new PathGuardMiddleware({ roots: [tree.data], tools: { read_file: [] } })).toThrow(/tools\.read_file/);
    expect(
      () => new PathGuardMiddleware({ roots: [tree.data], tools: GUARDED, rewrite: true, virtualPaths: true }),
    ).toThrow(/rewrite/);
  });
});

describe("PathGuardMiddleware: the corpora through a real createAgent graph", () => {
  /**
   * How a call carries the path, and the names the guard is configured with: as a listed argument
   * itself, or anywhere inside one (a key it does not list, an object key).
   */
  interface Shape {
    args: (path: string) => Record<string, unknown>;
    pathOf: (args: Record<string, unknown>) => string;
    names: readonly string[] | true;
  }
  const SHAPES: Record<string, Shape> = {
    "a listed argument": { args: (path) => ({ path }), pathOf: (args) => args.path as string, names: true },
    "src inside a listed files": {
      args: (path) => ({ files: [{ src: path, dest: "copies/x.txt" }] }),
      pathOf: (args) => (args.files as Array<{ src: string }>)[0]!.src,
      names: ["files"],
    },
    "a key of a listed files": {
      args: (path) => ({ files: { [path]: "copies/x.txt" } }),
      pathOf: (args) => Object.keys(args.files as object)[0]!,
      names: ["files"],
    },
  };
  /** Readers used for the nested shapes: what most tools do, the raw string, and every reading at once. */
  const NESTED_READERS = ["path.resolve", "kernel (raw string)", "everything a sloppy tool does, then the kernel"];

  /** One tool per reading a real tool applies (toolReaders.ts): each reads, then writes, where that reading leads. */
  const readerToolsFor = (shape: Shape, readers: typeof TOOL_READERS) =>
    readers.map((reader, index) =>
      tool(
        async (args: Record<string, unknown>) => {
          const opened = reader.open(shape.pathOf(args), tree.data);
          if (opened === undefined) return "refused by the tool";
          const leak = readLeaks(opened, tree.data) ?? writeProbe(opened, tree.data);
          return leak ? `LEAK ${leak}` : "ok";
        },
        { name: `touch_${index}`, description: reader.name, schema: z.object({}).passthrough() },
      ),
    );

  async function throughGraph(paths: string[], shape: Shape = SHAPES["a listed argument"]!) {
    const readerTools = readerToolsFor(
      shape,
      shape === SHAPES["a listed argument"]
        ? TOOL_READERS
        : TOOL_READERS.filter((r) => NESTED_READERS.includes(r.name)),
    );
    const names = Object.fromEntries(readerTools.map((t) => [t.name, shape.names]));
    const guard = new PathGuardMiddleware({ roots: [tree.data], baseDir: tree.data, tools: names });
    const turns: ScriptedTurn[] = paths.map((path) => ({
      toolCalls: readerTools.map((t) => ({ name: t.name, args: shape.args(path) })),
    }));
    const agent = createAgent({
      model: new ScriptedChatModel({ turns: [...turns, { text: "done" }] }),
      tools: readerTools,
      middleware: [guard],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 10_000 });
    const messages = result.messages as BaseMessage[];
    assertToolCallPairing(messages);
    const answers = messages.filter(ToolMessage.isInstance);
    const ran = answers.filter((m) => readMark(m)?.guard !== "PathGuardMiddleware").map((m) => m.tool_call_id);
    const calls = messages.flatMap(
      (m) => (m as { tool_calls?: Array<{ id: string; args: Record<string, unknown> }> }).tool_calls ?? [],
    );
    const ranPaths = calls.filter((c) => ran.includes(c.id)).map((c) => shape.pathOf(c.args));
    return {
      leaks: answers.filter((m) => String(m.content).startsWith("LEAK")).map((m) => String(m.content)),
      ranPaths: [...new Set(ranPaths)],
      refused: answers.length - ran.length,
      calls: answers.length,
      tools: readerTools.length,
    };
  }

  for (const [name, shape] of Object.entries(SHAPES)) {
    it(`0 escapes: every attack is refused by every tool, and nothing outside changes (${name})`, async () => {
      const before = tree.outsideSnapshot();
      const list = attacks(tree).map((a) => a.path);
      const { leaks, refused, calls, ranPaths, tools } = await throughGraph(list, shape);
      expect(leaks).toEqual([]);
      expect(ranPaths).toEqual([]);
      expect(calls).toBe(list.length * tools);
      expect(refused).toBe(calls);
      expect(tree.outsideSnapshot()).toEqual(before);
    }, 120_000);

    it(`0 legitimate paths refused: every tool runs every legitimate path, and nothing outside changes (${name})`, async () => {
      const before = tree.outsideSnapshot();
      const list = legitimate(tree).map((l) => l.path);
      const { leaks, refused, calls, tools } = await throughGraph(list, shape);
      expect(leaks).toEqual([]);
      expect(refused).toBe(0);
      expect(calls).toBe(list.length * tools);
      expect(tree.outsideSnapshot()).toEqual(before);
    }, 120_000);
  }
});

describe("PathGuardMiddleware keeps the contracts for random paths", () => {
  const corpus = [
    "docs/report..final.md",
    "src/index.ts",
    "link-inside",
    "new.txt",
    "../secret/passwd",
    "link-out/passwd",
    "file-out",
    "loop-a",
    "%2e%2e/secret",
    "~/x",
    "C:\\x",
    "docs\0x",
    "",
    "/etc/passwd",
    "dangling-out",
    "..hidden",
    "current/../../outside/secret.txt",
    " ../x",
  ];
  const pathArb = fc.oneof(
    fc.constantFrom(...corpus),
    fc.string({ maxLength: 12 }),
    fc
      .array(fc.constantFrom("..", ".", "docs", "current", "link-out", "x", "%2f", "\\"), { maxLength: 5 })
      .map((parts) => parts.join("/")),
  );

  it("every call is answered once, no tool touches a refused path, and nothing outside the root changes", async () => {
    const before = readdirSync(tree.secret).sort();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(pathArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        async (batches) => {
          const turns: ScriptedTurn[] = batches.map((paths) => ({
            toolCalls: paths.map((path) => ({ name: "read_file", args: { path } })),
          }));
          const { messages, touched, signals } = await run([...turns, { text: "done" }]);
          const refused = new Set(signals.map((s) => s.toolCallId));
          for (const message of messages.filter(ToolMessage.isInstance)) {
            if (refused.has(message.tool_call_id))
              expect(String(message.content)).toMatch(/^read_file was not run: path /);
          }
          expect(touched.length + refused.size).toBe(batches.flat().length);
        },
      ),
      { numRuns: 60 },
    );
    expect(readdirSync(tree.secret).sort()).toEqual(before);
  });
});
