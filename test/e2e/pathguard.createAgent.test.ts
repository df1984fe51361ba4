import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import fc from "fast-check";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidOptionsError } from "../../src/core/errors.js";
import type { Signal } from "../../src/core/signals.js";
import { PathGuardMiddleware, type PathGuardOptions } from "../../src/middleware/PathGuardMiddleware.js";
import { ToolCallRepairMiddleware } from "../../src/middleware/ToolCallRepairMiddleware.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { makePathTree } from "../guards/path/pathTree.js";

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
  const write = tool(async ({ file_path, content }: { file_path: string; content: string }) => (touched.push(file_path), writeFileSync(at(file_path), content), "written"), {
    name: "write_file",
    description: "write a file",
    schema: z.object({ file_path: z.string(), content: z.string() }),
  });
  const copy = tool(async ({ from, to }: { from: string[]; to: string }) => (touched.push(...from, to), "copied"), {
    name: "copy_files",
    description: "copy files",
    schema: z.object({ from: z.array(z.string()), to: z.string() }),
  });
  const echo = tool(async ({ path }: { path: string }) => `echo ${path}`, { name: "echo", description: "not a file tool", schema: z.object({ path: z.string() }) });
  return { tools: [read, write, copy, echo], touched };
}

const GUARDED: PathGuardOptions["tools"] = { read_file: true, write_file: ["file_path"], copy_files: ["from", "to"] };

async function run(turns: ScriptedTurn[], guard = true) {
  const fs = fsTools();
  const signals: Signal[] = [];
  const middleware = guard ? [new PathGuardMiddleware({ roots: [tree.data], baseDir: tree.data, tools: GUARDED, onSignal: (s) => signals.push(s) })] : [];
  const agent = createAgent({ model: new ScriptedChatModel({ turns }), tools: fs.tools, middleware });
  const result = await agent.invoke({ messages: [new HumanMessage("go")] });
  const messages = result.messages as BaseMessage[];
  assertToolCallPairing(messages);
  return { messages, touched: fs.touched, signals, answers: messages.filter(ToolMessage.isInstance).map((m) => String(m.content)) };
}

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({ toolCalls: [{ name, args }] });

describe("PathGuardMiddleware in createAgent", () => {
  it("without it, a symlink inside the project leaks a file outside it", async () => {
    const { answers } = await run([call("read_file", { path: "link-out/passwd" }), { text: "done" }], false);
    expect(answers[0]).toBe("root:x:0:0");
  });

  it("refuses the read, names the root, signals, and never runs the tool", async () => {
    const { answers, touched, signals } = await run([call("read_file", { path: "link-out/passwd" }), { text: "done" }]);
    expect(touched).toEqual([]);
    expect(answers[0]).toBe(
      `read_file was not run: path "link-out/passwd" in "path" is not allowed because it resolves through a symbolic link to a place outside the allowed directories. Use a path inside ${tree.data}.`,
    );
    expect(signals).toEqual([
      expect.objectContaining({ guard: "PathGuardMiddleware", action: "directive", reason: "through_symlink", tool: "read_file", detail: expect.objectContaining({ argument: "path", path: "link-out/passwd" }) }),
    ]);
  });

  it("keeps a write through a dangling symlink from creating a file outside", async () => {
    const { answers } = await run([call("write_file", { file_path: "dangling-out", content: "pwned" }), { text: "done" }]);
    expect(answers[0]).toMatch(/^write_file was not run/);
    expect(existsSync(join(tree.secret, "new.txt"))).toBe(false);
  });

  it("lets legitimate paths through to the tool, names with dots included", async () => {
    const { answers, touched } = await run([
      { toolCalls: [{ name: "read_file", args: { path: "docs/report..final.md" } }, { name: "read_file", args: { path: "link-inside/[...slug].tsx" } }] },
      call("write_file", { file_path: "notes/../fresh.md", content: "new" }),
      { text: "done" },
    ]);
    expect(answers).toEqual(["report", "page", "written"]);
    expect(touched).toHaveLength(3);
    expect(readFileSync(join(tree.data, "fresh.md"), "utf8")).toBe("new");
  });

  it("checks every string of an array argument and only the configured arguments and tools", async () => {
    const { answers } = await run([
      call("copy_files", { from: ["docs/report..final.md", "../secret/passwd"], to: "out" }),
      call("echo", { path: "/etc/passwd" }),
      { text: "done" },
    ]);
    expect(answers[0]).toMatch(/^copy_files was not run: path "\.\.\/secret\/passwd" in "from"/);
    expect(answers[1]).toBe("echo /etc/passwd");
  });

  it("composes with ToolCallRepairMiddleware: a repaired call is path-checked too", async () => {
    const fs = fsTools();
    const agent = createAgent({
      model: new ScriptedChatModel({ turns: [{ invalidToolCalls: [{ name: "read_file", args: "{'path': 'link-out/passwd'}" }] }, { text: "done" }] }),
      tools: fs.tools,
      middleware: [new PathGuardMiddleware({ roots: [tree.data], baseDir: tree.data, tools: GUARDED }), new ToolCallRepairMiddleware()],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(fs.touched).toEqual([]);
    expect(String(messages.find(ToolMessage.isInstance)!.content)).toMatch(/^read_file was not run: path "link-out\/passwd"/);
  });

  it("in observe-only mode signals the escape and lets the call run", async () => {
    const fs = fsTools();
    const signals: Signal[] = [];
    const agent = createAgent({
      model: new ScriptedChatModel({ turns: [call("read_file", { path: "link-out/passwd" }), { text: "done" }] }),
      tools: fs.tools,
      middleware: [new PathGuardMiddleware({ roots: [tree.data], baseDir: tree.data, tools: GUARDED, observeOnly: true, onSignal: (s) => signals.push(s) })],
    });
    await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(fs.touched).toEqual(["link-out/passwd"]);
    expect(signals).toEqual([expect.objectContaining({ reason: "through_symlink", detail: expect.objectContaining({ observeOnly: true }) })]);
  });

  it("refuses bad options with a typed error", () => {
    expect(() => new PathGuardMiddleware({ roots: [], tools: GUARDED })).toThrow(InvalidOptionsError);
    expect(() => new PathGuardMiddleware({ roots: [tree.data], tools: {} })).toThrow(InvalidOptionsError);
    expect(() => new PathGuardMiddleware({ roots: [tree.data], tools: { read_file: [] } })).toThrow(/tools\.read_file/);
  });
});

describe("PathGuardMiddleware keeps the contracts for random paths", () => {
  const corpus = [
    "docs/report..final.md", "src/index.ts", "link-inside", "new.txt", "../secret/passwd", "link-out/passwd", "file-out", "loop-a",
    "%2e%2e/secret", "~/x", "C:\\x", "docs\0x", "", "/etc/passwd", "dangling-out", "..hidden",
  ];
  const pathArb = fc.oneof(fc.constantFrom(...corpus), fc.string({ maxLength: 12 }), fc.array(fc.constantFrom("..", ".", "docs", "link-out", "x", "%2f", "\\"), { maxLength: 5 }).map((parts) => parts.join("/")));

  it("every call is answered once, no tool touches a refused path, and nothing outside the root changes", async () => {
    const before = readdirSync(tree.secret).sort();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(pathArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }), async (batches) => {
        const turns: ScriptedTurn[] = batches.map((paths) => ({ toolCalls: paths.map((path) => ({ name: "read_file", args: { path } })) }));
        const { messages, touched, signals } = await run([...turns, { text: "done" }]);
        const refused = new Set(signals.map((s) => s.toolCallId));
        for (const message of messages.filter(ToolMessage.isInstance)) {
          if (refused.has(message.tool_call_id)) expect(String(message.content)).toMatch(/^read_file was not run: path /);
        }
        expect(touched.length + refused.size).toBe(batches.flat().length);
      }),
      { numRuns: 60 },
    );
    expect(readdirSync(tree.secret).sort()).toEqual(before);
  });
});
