import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { buildReplaySetup } from "../../src/replay/config.js";
import { replayThread } from "../../src/replay/replayThread.js";
import { collectThreadFiles, loadThreadFile } from "../../src/replay/sources.js";
import { listCheckpointThreads, loadCheckpointThread } from "../../src/replay/sqlite.js";
import { runCli } from "../../src/cli/cli.js";
import { loadThread, ThreadLoadError } from "../../src/testing/index.js";
import { captureIo } from "./io.js";

const dir = mkdtempSync(join(tmpdir(), "hk-sources-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// No type declarations ship with better-sqlite3; the tests only need a constructor and two methods.
type Db = { exec(sql: string): void; prepare(sql: string): { all(): unknown[] } };
const DRIVER = "better-sqlite3";
const Database = ((await import(DRIVER)) as { default: new (path: string, options?: { readonly?: boolean }) => Db })
  .default;

const EVALDATA = join(import.meta.dirname, "..", "..", "..", "shared", "evaldata", "threads");
// Real threads live beside the repository; without them this test skips and says why.
const NO_EVALDATA = existsSync(EVALDATA) ? undefined : `skipped: no recorded threads at ${EVALDATA}`;
if (NO_EVALDATA) console.log(`test/cli/sources.test.ts: ${NO_EVALDATA}`);

/** Replay as the CLI does it (dicts kept as they are) and through the test kit's converted messages. */
async function bothWays(path: string) {
  const setup = buildReplaySetup();
  const fast = await replayThread(loadThreadFile(path).messages, setup.stack);
  const converted = await replayThread(loadThread(path).messages, buildReplaySetup().stack);
  return { fast, converted };
}

const toolArb = fc.constantFrom("search", "book", "think", "get_status", "edit_file");
const stepArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      tool: toolArb,
      x: fc.integer({ min: 0, max: 2 }),
      result: fc.constantFrom("r1", "r2", "Error: boom", "", "a\nb", "2024-01-01T00:00:0Z done"),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ human: true as const }) },
);

describe("the CLI's plain-dict fast path", () => {
  it("gives the decisions the test kit's converted messages give, for any history", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { maxLength: 30 }), fc.boolean(), async (steps, batchPairs) => {
        const messages: Array<Record<string, unknown>> = [{ type: "human", content: "go" }];
        for (let i = 0; i < steps.length; i++) {
          const step = steps[i]!;
          if ("human" in step) {
            messages.push({ type: "human", content: "again" });
            continue;
          }
          const calls = [{ id: `c${i}`, name: step.tool, args: { x: step.x }, type: "tool_call" }];
          if (batchPairs && i % 3 === 0)
            calls.push({ id: `c${i}b`, name: step.tool, args: { x: step.x }, type: "tool_call" });
          messages.push({ type: "ai", content: "", tool_calls: calls });
          for (const call of calls)
            messages.push({ type: "tool", tool_call_id: call.id, name: step.tool, content: step.result });
        }
        const path = join(dir, `prop-${n++}.json`);
        writeFileSync(path, JSON.stringify({ messages }));
        const { fast, converted } = await bothWays(path);
        expect(fast).toEqual(converted);
      }),
      { numRuns: 60 },
    );
  });

  it.skipIf(NO_EVALDATA !== undefined)(
    `gives the same decisions on real threads of every source${NO_EVALDATA ? ` (${NO_EVALDATA})` : ""}`,
    async () => {
      const { files } = collectThreadFiles([EVALDATA]);
      const sample = files.filter((_, i) => i % 29 === 0);
      expect(sample.length).toBeGreaterThan(25);
      for (const file of sample) {
        const { fast, converted } = await bothWays(file);
        expect(fast, file).toEqual(converted);
      }
    },
  );
});

describe("SQLite checkpoint sources", () => {
  it("a missing file, a file that is not SQLite and a database without checkpoints each get a plain reason", async () => {
    const notSqlite = join(dir, "text.sqlite");
    writeFileSync(
      notSqlite,
      "this is not a database, just some text that is long enough to look like a header".repeat(20),
    );
    const otherDb = join(dir, "other.sqlite");
    new Database(otherDb).exec("CREATE TABLE notes (body TEXT)");
    await expect(listCheckpointThreads(join(dir, "nope.sqlite"))).rejects.toMatchObject({ reason: "no such file" });
    await expect(listCheckpointThreads(notSqlite)).rejects.toMatchObject({
      reason: expect.stringMatching(/^not a readable SQLite database/),
    });
    await expect(listCheckpointThreads(otherDb)).rejects.toMatchObject({
      reason: expect.stringMatching(/no checkpoints table/),
    });
    // reading never writes: the foreign database still has its one table
    const tables = new Database(otherDb, { readonly: true })
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all();
    expect(tables).toEqual([{ name: "notes" }]);
  });

  it("an unknown thread id names the threads the file holds", async () => {
    const { SqliteSaver } = await import("@langchain/langgraph-checkpoint-sqlite");
    const { createAgent } = await import("langchain");
    const { HumanMessage } = await import("@langchain/core/messages");
    const { ScriptedChatModel } = await import("../../src/testing/index.js");
    const db = join(dir, "threads.sqlite");
    const agent = createAgent({
      model: new ScriptedChatModel({ turns: [{ text: "hello" }] }),
      tools: [],
      checkpointer: SqliteSaver.fromConnString(db),
    });
    for (const id of ["alpha", "beta"])
      await agent.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: id } });
    expect(await listCheckpointThreads(db)).toEqual(["alpha", "beta"]);
    expect((await loadCheckpointThread(db, "beta")).messages.map((m) => m.type)).toEqual(["human", "ai"]);
    const error = await loadCheckpointThread(db, "gamma").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThreadLoadError);
    expect((error as ThreadLoadError).reason).toBe('no thread "gamma" (threads in the file: alpha, beta)');

    const io = captureIo();
    expect(await runCli(["inspect", "--sqlite", db, "--thread", "gamma"], io)).toBe(1);
    expect(io.stderr()).toBe(`error: ${db}:gamma: no thread "gamma" (threads in the file: alpha, beta)\n`);
    const all = captureIo();
    expect(await runCli(["eval", "--sqlite", db], all)).toBe(0);
    expect(all.stdout()).toMatch(/threads\s+2\s/);
  });
});
