import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemoryStore } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { runCli } from "../../src/cli/cli.js";
import { redacted } from "../../src/replay/postgres.js";
import { LangGraphOffloadStore, type Signal } from "../../src/index.js";
import { captureIo } from "../cli/io.js";
import { startEmbeddedPostgres } from "./embeddedPostgres.js";
import { scenarioAgent, startMessage, SUMMARISED } from "./scenario.js";

/** Issue 16: `harness-kit inspect` and `eval` read threads from a PostgresSaver database. */

const postgres = await startEmbeddedPostgres();
if (postgres.skipped) console.log(`Postgres tests skipped: ${postgres.skipped}`);

/** The guards `inspect`/`eval` replay by default. */
const REPLAYED = new Set(["RunawayGuardMiddleware", "ProgressAwareLoopGuardMiddleware", "LoopGuardMiddleware"]);

describe.skipIf(postgres.skipped !== undefined)("harness-kit inspect/eval --postgres", () => {
  const url = postgres.server?.url ?? "";
  const live = new Map<string, Signal[]>();
  let saver: PostgresSaver;

  beforeAll(async () => {
    saver = PostgresSaver.fromConnString(url);
    await saver.setup();
    for (const script of ["loop", "carry", "batch"]) {
      const signals: Signal[] = [];
      const agent = scenarioAgent({
        checkpointer: saver,
        offloadStore: new LangGraphOffloadStore({ store: new InMemoryStore() }),
        summarised: SUMMARISED.has(script),
        onSignal: (signal) => void signals.push(signal),
      });
      await agent.invoke(
        { messages: [startMessage(script)] },
        { configurable: { thread_id: `cli-${script}` }, recursionLimit: 500 },
      );
      live.set(
        `cli-${script}`,
        signals.filter((s) => REPLAYED.has(s.guard)),
      );
    }
  }, 60_000);

  afterAll(async () => {
    await saver?.end();
    await postgres.server?.stop();
  });

  const asLines = (thread: string) =>
    live
      .get(thread)!
      .map(({ toolCallId, tool, guard, action, reason }) => ({ thread, toolCallId, tool, guard, action, reason }));

  it("eval over every thread of the database replays what the live runs signalled", async () => {
    const io = captureIo();
    expect(await runCli(["eval", "--postgres", url, "--jsonl"], io)).toBe(0);
    const replayed = io.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(replayed).toEqual([...asLines("cli-batch"), ...asLines("cli-carry"), ...asLines("cli-loop")]);
    expect(replayed.some((d) => d.action === "stop" && d.guard === "ProgressAwareLoopGuardMiddleware")).toBe(true);
    expect(io.stderr()).toMatch(/threads\s+3\b/);
  });

  it("inspect --thread replays a summarised thread with its carried history, to the live run's stop", async () => {
    const io = captureIo();
    expect(await runCli(["inspect", "--postgres", url, "--thread", "cli-carry", "--json"], io)).toBe(0);
    const report = JSON.parse(io.stdout()) as {
      rows: { toolCallId: string; decisions: { guard: string; action: string }[] }[];
    };
    // Calls the summaries removed are rows too: the thread is read with its carried history.
    const stop = live.get("cli-carry")!.at(-1)!;
    expect(stop.action).toBe("stop");
    const polls = Number(stop.toolCallId!.replace("carry-", "")) + 1;
    expect(report.rows.map((row) => row.toolCallId)).toEqual(Array.from({ length: polls }, (_, i) => `carry-${i}`));
    expect(report.rows.at(-1)!.decisions).toContainEqual(
      expect.objectContaining({ guard: stop.guard, action: "stop" }),
    );
    const one = captureIo();
    expect(await runCli(["eval", "--postgres", url, "--thread", "cli-carry", "--jsonl"], one)).toBe(0);
    expect(one.stdoutLines().map((line) => JSON.parse(line))).toEqual(asLines("cli-carry"));
  });

  it("says which threads exist, and never prints the password", async () => {
    const password = new URL(url).password;
    const io = captureIo();
    expect(await runCli(["inspect", "--postgres", url, "--thread", "nope"], io)).toBe(1);
    expect(io.stderr()).toContain('no thread "nope" (threads in the database: cli-batch, cli-carry, cli-loop)');
    expect(io.stderr()).not.toContain(password);

    const wrong = new URL(url);
    wrong.password = "not-the-password";
    const refused = captureIo();
    expect(await runCli(["eval", "--postgres", wrong.toString()], refused)).toBe(1);
    expect(refused.stderr()).toMatch(/cannot read the database \(password authentication failed/);
    expect(refused.stderr()).not.toContain("not-the-password");
  });

  it("a database without LangGraph checkpoints is named as such", async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query("CREATE DATABASE empty_db");
    await admin.end();
    const empty = new URL(url);
    empty.pathname = "/empty_db";
    const io = captureIo();
    expect(await runCli(["eval", "--postgres", empty.toString()], io)).toBe(1);
    expect(io.stderr()).toContain("not a LangGraph checkpoint database (no checkpoints table)");
  });

  it("rejects --sqlite with --postgres, and inspect --postgres without --thread", async () => {
    const io = captureIo();
    expect(await runCli(["eval", "--postgres", url, "--sqlite", "x.sqlite"], io)).toBe(2);
    expect(io.stderr()).toContain("--sqlite and --postgres: one checkpoint database or server at a time");
    const inspect = captureIo();
    expect(await runCli(["inspect", "--postgres", url], inspect)).toBe(2);
    expect(inspect.stderr()).toContain("inspect --postgres needs --thread <id>");
  });
});

describe("redacted connection strings", () => {
  it("hide the password and keep the rest", () => {
    expect(redacted("postgresql://app:s3cret@db.internal:5432/agents?sslmode=require")).toBe(
      "postgresql://app:***@db.internal:5432/agents?sslmode=require",
    );
    expect(redacted("postgresql://app@db.internal/agents")).toBe("postgresql://app@db.internal/agents");
    expect(redacted("not a url:pw@host")).toBe("not a url:***@host");
  });
});
