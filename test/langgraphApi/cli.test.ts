import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { MemorySaver } from "@langchain/langgraph";
import { runCli } from "../../src/cli/cli.js";
import type { GuardState } from "../../src/hooks/carry.js";
import { checkpointHistory } from "../../src/hooks/summaryRemovals.js";
import { langGraphThreadIds } from "../../src/replay/langgraphApi.js";
import type { Signal } from "../../src/index.js";
import { startLocalServer } from "../helpers/localServer.js";
import { captureIo } from "../cli/io.js";
import { serverTestAgent, SCRIPTS, startMessage, SUMMARISED } from "./agent.js";
import { startLangGraphServer, type LangGraphServer } from "./langgraphServer.js";

/**
 * Issue 30: `inspect` and `eval --langgraph-api` read threads from a real LangGraph server (the
 * in-memory server of `langgraph dev`, started here), and replay them as the same threads run
 * in this process replay from thread files: the decisions the live run signalled.
 */

/** The guards `inspect`/`eval` replay by default. */
const REPLAYED = new Set(["RunawayGuardMiddleware", "ProgressAwareLoopGuardMiddleware", "LoopGuardMiddleware"]);
const SCRIPT_NAMES = Object.keys(SCRIPTS);

describe("harness-kit inspect/eval --langgraph-api", () => {
  let server: LangGraphServer;
  const folder = mkdtempSync(join(tmpdir(), "hk-lgapi-"));
  /** Script by server thread id, and the server thread id by script. */
  const scriptOf = new Map<string, string>();
  const threadOf = new Map<string, string>();
  /** What the same scripts did in this process: live signals, and the history saved as a thread file. */
  const live = new Map<string, Signal[]>();
  const file = new Map<string, string>();
  /** Between the first two threads and the others. */
  let midway: Date;

  beforeAll(async () => {
    const [started] = await Promise.all([startLangGraphServer(), runHere()]);
    server = started;
    const client = new Client({ apiUrl: server.url, apiKey: null });
    for (const [index, script] of SCRIPT_NAMES.entries()) {
      if (index === 2) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        midway = new Date();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const thread = await client.threads.create({ metadata: { script } });
      const graph = SUMMARISED.has(script) ? "summarised" : "agent";
      await client.runs.wait(thread.thread_id, graph, {
        input: { messages: [{ type: "human", content: String(startMessage(script).content) }] },
        config: { recursion_limit: 500 },
      });
      scriptOf.set(thread.thread_id, script);
      threadOf.set(script, thread.thread_id);
    }
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  /** Every script run in this process on a MemorySaver, its history read back as replay reads a checkpoint. */
  async function runHere(): Promise<void> {
    for (const script of SCRIPT_NAMES) {
      const signals: Signal[] = [];
      const checkpointer = new MemorySaver();
      const agent = serverTestAgent({
        summarised: SUMMARISED.has(script),
        checkpointer,
        onSignal: (signal) => void signals.push(signal),
      });
      await agent.invoke(
        { messages: [startMessage(script)] },
        { configurable: { thread_id: script }, recursionLimit: 500 },
      );
      const tuple = (await checkpointer.getTuple({ configurable: { thread_id: script } }))!;
      const messages = await checkpointHistory(
        checkpointer,
        tuple.checkpoint.channel_values as unknown as GuardState,
        tuple.parentConfig,
      );
      const path = join(folder, `${script}.json`);
      writeFileSync(path, JSON.stringify({ id: script, messages }));
      file.set(script, path);
      live.set(
        script,
        signals.filter((s) => REPLAYED.has(s.guard)),
      );
    }
  }

  /** Decision lines with the server's thread ids named by their script. */
  const byScript = (lines: string[]): Array<Record<string, unknown>> =>
    lines.map((line) => {
      const decision = JSON.parse(line) as Record<string, unknown>;
      return { ...decision, thread: scriptOf.get(String(decision.thread)) ?? decision.thread };
    });
  const liveLines = (script: string) =>
    live.get(script)!.map(({ toolCallId, tool, guard, action, reason }) => ({
      thread: script,
      toolCallId,
      tool,
      guard,
      action,
      reason,
    }));
  /** The summary without the time it took. */
  const totals = (text: string) => text.replace(/^throughput.*$/m, "");
  /** Scripts in the order the server lists their threads (by thread id). */
  const inServerOrder = () => [...threadOf.values()].sort().map((id) => scriptOf.get(id)!);

  it("eval over every thread of the server gives the live runs' signals, and the thread files' totals", async () => {
    const io = captureIo();
    expect(await runCli(["eval", "--langgraph-api", server.url, "--jsonl"], io), io.stderr()).toBe(0);
    const replayed = byScript(io.stdoutLines());
    expect(replayed).toEqual(inServerOrder().flatMap(liveLines));
    // The scripts do what they are here for: a stop on the loop, on the failing deploy, and across summaries.
    for (const script of ["loop", "failing", "carry"])
      expect(
        replayed.some((d) => d.thread === script && d.action === "stop"),
        script,
      ).toBe(true);
    for (const script of ["calm", "brief"])
      expect(
        replayed.some((d) => d.thread === script),
        script,
      ).toBe(false);
    // On worker threads only: each loads its threads from the server itself.
    const onWorkers = captureIo({ env: { HARNESS_KIT_REPLAY_HERE: "0" } });
    expect(
      await runCli(["eval", "--langgraph-api", server.url, "--jsonl", "--workers", "2"], onWorkers),
      onWorkers.stderr(),
    ).toBe(0);
    expect(onWorkers.stdout()).toBe(io.stdout());

    const fromServer = captureIo();
    const fromFiles = captureIo();
    expect(await runCli(["eval", "--langgraph-api", server.url, "--workers", "1"], fromServer)).toBe(0);
    expect(await runCli(["eval", ...SCRIPT_NAMES.map((s) => file.get(s)!), "--workers", "1"], fromFiles)).toBe(0);
    expect(totals(fromServer.stdout())).toEqual(totals(fromFiles.stdout()));
    expect(fromServer.stdout()).toMatch(new RegExp(`threads\\s+${SCRIPT_NAMES.length}\\b`));
  });

  it("inspect --thread reads a summarised thread with the history its summaries removed, as its thread file gives it", async () => {
    for (const script of ["carry", "brief", "failing"]) {
      const io = captureIo();
      expect(
        await runCli(["inspect", "--langgraph-api", server.url, "--thread", threadOf.get(script)!, "--json"], io),
        io.stderr(),
      ).toBe(0);
      const reference = captureIo();
      expect(await runCli(["inspect", file.get(script)!, "--json"], reference)).toBe(0);
      const { thread, source, ...report } = JSON.parse(io.stdout()) as Record<string, unknown>;
      const { thread: _t, source: _s, ...expected } = JSON.parse(reference.stdout()) as Record<string, unknown>;
      expect(thread).toBe(threadOf.get(script));
      expect(source).toBe(`${server.url}:${threadOf.get(script)}`);
      expect(report).toEqual(expected);
    }
    // Polls the summaries removed are rows too: carried in the state (carry), or found in the
    // thread's earlier checkpoints (brief ends right after a summary, which nothing carried).
    const rowsOf = async (script: string) => {
      const io = captureIo();
      expect(
        await runCli(["inspect", "--langgraph-api", server.url, "--thread", threadOf.get(script)!, "--json"], io),
      ).toBe(0);
      return (JSON.parse(io.stdout()) as { rows: { toolCallId: string }[] }).rows.map((row) => row.toolCallId);
    };
    const stop = live.get("carry")!.at(-1)!;
    expect(await rowsOf("carry")).toEqual(
      Array.from({ length: Number(stop.toolCallId!.replace("carry-", "")) + 1 }, (_, i) => `carry-${i}`),
    );
    const brief = (await new Client({ apiUrl: server.url, apiKey: null }).threads.getState(threadOf.get("brief")!))
      .values as Record<string, unknown[]>;
    expect((brief.messages![0] as { content: string }).content).toMatch(/^Here is a summary/);
    expect(brief._harnessKitCarry ?? []).toEqual([]);
    expect(await rowsOf("brief")).toEqual(["brief-0", "brief-1"]);
  });

  it("eval --since replays only the threads updated since then", async () => {
    const io = captureIo();
    expect(
      await runCli(["eval", "--langgraph-api", server.url, "--since", midway.toISOString(), "--jsonl"], io),
      io.stderr(),
    ).toBe(0);
    const later = SCRIPT_NAMES.slice(2);
    expect(new Set(byScript(io.stdoutLines()).map((d) => d.thread))).toEqual(
      new Set(later.filter((s) => live.get(s)!.length > 0)),
    );
    expect(io.stderr()).toMatch(new RegExp(`threads\\s+${later.length}\\b`));

    const none = captureIo();
    expect(await runCli(["eval", "--langgraph-api", server.url, "--since", "2999-01-01"], none)).toBe(1);
    expect(none.stderr()).toContain("no thread found in the server");
  });

  it("pages through the threads without missing or repeating one", async () => {
    const all = [...threadOf.values()].sort();
    for (const pageSize of [1, 3, 1000]) {
      const ids: string[] = [];
      for await (const id of langGraphThreadIds({ url: server.url }, { pageSize })) ids.push(id);
      expect(ids, `pages of ${pageSize}`).toEqual(all);
    }
    const recent: string[] = [];
    for await (const id of langGraphThreadIds({ url: server.url }, { since: midway, pageSize: 1 })) recent.push(id);
    expect(recent).toEqual(
      SCRIPT_NAMES.slice(2)
        .map((s) => threadOf.get(s)!)
        .reverse(),
    );
  });

  it("names a thread the server does not hold", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    const io = captureIo();
    expect(await runCli(["inspect", "--langgraph-api", server.url, "--thread", missing], io)).toBe(1);
    expect(io.stderr()).toContain(`no thread "${missing}" on the server`);
  });
});

describe("--langgraph-api without a LangGraph server", () => {
  it("sends --langgraph-api-key, else LANGGRAPH_API_KEY or LANGSMITH_API_KEY, as the API key", async () => {
    const keys: Array<string | undefined> = [];
    const stub = await startLocalServer((_body, req, res) => {
      keys.push(req.headers["x-api-key"] as string | undefined);
      res.writeHead(200, { "content-type": "application/json" }).end("[]");
    });
    try {
      const run = async (args: string[], env: Record<string, string>) => {
        const io = captureIo({ env });
        expect(await runCli(["eval", "--langgraph-api", stub.url, ...args], io)).toBe(1);
        expect(io.stderr()).toContain("no thread found in the server");
      };
      await run(["--langgraph-api-key", "from-flag"], { LANGGRAPH_API_KEY: "from-env" });
      await run([], { LANGGRAPH_API_KEY: "langgraph-key", LANGSMITH_API_KEY: "langsmith-key" });
      await run([], { LANGSMITH_API_KEY: "langsmith-key" });
      await run([], {});
      expect(keys).toEqual(["from-flag", "langgraph-key", "langsmith-key", undefined]);
    } finally {
      await stub.close();
    }
  });

  it("says when the server cannot be reached", async () => {
    const stub = await startLocalServer(() => undefined);
    const url = stub.url;
    await stub.close();
    const io = captureIo();
    expect(await runCli(["eval", "--langgraph-api", url], io)).toBe(1);
    expect(io.stderr()).toContain(`${url}: cannot read the server's threads`);
  });

  it("rejects --since without eval --langgraph-api, and a --since that is not a date", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["eval", "x.json", "--since", "2026-01-01"], /--since belongs to eval --langgraph-api/],
      [
        ["inspect", "--langgraph-api", "http://x", "--thread", "t", "--since", "2026-01-01"],
        /--since belongs to eval --langgraph-api/,
      ],
      [["eval", "--langgraph-api", "http://x", "--since", "yesterday"], /--since takes an ISO 8601 date/],
      [
        ["eval", "--langgraph-api", "http://x", "--sqlite", "x.sqlite"],
        /--sqlite and --langgraph-api: one checkpoint database or server at a time/,
      ],
      [["eval", "x.json", "--langgraph-api-key", "k"], /--langgraph-api-key belongs to --langgraph-api/],
      [["inspect", "--langgraph-api", "http://x"], /inspect --langgraph-api needs --thread <id>/],
    ];
    for (const [args, problem] of cases) {
      const io = captureIo();
      expect(await runCli(args, io), args.join(" ")).toBe(2);
      expect(io.stderr()).toMatch(problem);
    }
  });
});
