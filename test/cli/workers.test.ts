import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/cli.js";
import { replaySetupFor, type ReplaySetupRequest } from "../../src/replay/config.js";
import { evaluateSources, type EvalHooks } from "../../src/replay/evaluate.js";
import { collectThreadFiles } from "../../src/replay/sources.js";
import { evaluateSourcesInWorkers } from "../../src/replay/workers.js";
import { startSpareWorkers, takeSpareWorker, workersAskedFor } from "../../src/replay/workerStart.js";
import { tempFiles } from "../helpers/tempFiles.js";
import { captureIo } from "./io.js";

// `eval --workers`: the same output as one thread, byte for byte, whichever thread replayed what.

const { dir, write } = tempFiles("hk-workers-");
const EVALDATA = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..", "..", "shared", "evaldata", "threads");
// Real threads live beside the repository; without them this test skips and says why.
const NO_EVALDATA = existsSync(EVALDATA) ? undefined : `skipped: no recorded threads at ${EVALDATA}`;
if (NO_EVALDATA) console.log(`test/cli/workers.test.ts: ${NO_EVALDATA}`);
const ENTRY = new URL("../../src/cli/main.ts", import.meta.url);

/** A thread that retries a failing call `retries` times (the progress guard steps in from the 3rd) among ordinary calls. */
function thread(n: number): Record<string, unknown> {
  const messages: Array<Record<string, unknown>> = [{ type: "human", content: `task ${n}` }];
  let k = 0;
  const step = (name: string, args: Record<string, unknown>, content: string) => {
    const id = `t${n}-${k++}`;
    messages.push({ type: "ai", content: "", tool_calls: [{ id, name, args, type: "tool_call" }] });
    messages.push({ type: "tool", tool_call_id: id, name, content });
  };
  for (let i = 0; i < (n % 5) + 1; i++) step("search", { q: `topic ${n} ${i}` }, `result ${i} of ${n}`);
  for (let i = 0; i < n % 7; i++) step("book", { flight: `F${n % 3}` }, "Error: payment declined");
  if (n % 11 === 0) for (let i = 0; i < 8; i++) step("poll", { job: n }, "status: running");
  messages.push({ type: "ai", content: "done" });
  return { id: `thread-${String(n).padStart(3, "0")}`, messages };
}

for (let n = 0; n < 60; n++) write(`threads/${String(n).padStart(3, "0")}.json`, thread(n));
write("threads/020-bad.json", "{ not json");
write("threads/030-empty.json", []);
write("threads/040-unknown.json", [{ type: "robot", content: "?" }]);
const threads = join(dir, "threads");
const config = write("stack.json", {
  guards: { LoopGuardMiddleware: { warnAt: 2, stopAt: 4 }, ProgressAwareLoopGuardMiddleware: { stopAt: 3 } },
});

/** Every hook call, in order, as text; the summary without its time. */
async function trace(
  run: (hooks: EvalHooks) => Promise<{ elapsedMs: number }>,
): Promise<{ calls: string[]; summary: unknown }> {
  const calls: string[] = [];
  const hooks: EvalHooks = {
    onThread: (thread, replay) => calls.push(JSON.stringify(["thread", thread, replay])),
    onEmptyThread: (thread) => calls.push(JSON.stringify(["empty", thread])),
    onProblem: (problem) => calls.push(JSON.stringify(["problem", problem.file, problem.reason])),
    onProgress: (done, total, toolCalls) => calls.push(JSON.stringify(["progress", done, total, toolCalls])),
  };
  const { elapsedMs: _elapsed, ...summary } = await run(hooks);
  return { calls, summary };
}

/** The CLI's output, with the one line that differs between runs (the time taken) left out. */
async function evalOutput(args: string[], env: Record<string, string> = {}) {
  const io = captureIo({ env });
  const code = await runCli(["eval", ...args], io);
  const steady = (text: string) => text.replace(/^throughput .*$/m, "throughput <time>");
  return { code, stdout: steady(io.stdout()), stderr: steady(io.stderr()) };
}

describe("evaluateSourcesInWorkers", () => {
  const sources = collectThreadFiles([threads]).files.map((path) => ({ kind: "file" as const, path }));

  it.each<[string, ReplaySetupRequest]>([
    ["the default stack", {}],
    [
      "a --config file and simulated usage, which each worker reads for itself",
      { configFile: config, simulateUsage: { systemTokens: 500 } },
    ],
  ])("calls every hook as one thread does, in source order, with %s", async (_name, request) => {
    const setup = replaySetupFor(request);
    const one = await trace((hooks) => evaluateSources(sources, setup, hooks));
    // Only the workers replay: every outcome crosses threads.
    const workers = await trace((hooks) =>
      evaluateSourcesInWorkers(sources, setup, { workers: 3, entry: ENTRY, request, replayHere: false }, hooks),
    );
    expect(workers).toEqual(one);
    expect(one.calls.some((call) => call.startsWith('["problem"'))).toBe(true);
    expect(one.calls.some((call) => call.startsWith('["empty"'))).toBe(true);
    expect((one.summary as { threads: number }).threads).toBe(sources.length - 2);
    // This thread and one worker share the work the same way.
    const shared = await trace((hooks) =>
      evaluateSourcesInWorkers(sources, setup, { workers: 2, entry: ENTRY, request }, hooks),
    );
    expect(shared).toEqual(one);
  });

  it("reports a worker that cannot build the guard stack", async () => {
    const setup = replaySetupFor({});
    const request = { configFile: join(dir, "gone.json") };
    await expect(
      evaluateSourcesInWorkers(sources, setup, { workers: 2, entry: ENTRY, request, replayHere: false }),
    ).rejects.toThrow(/replay worker 1 of 1 could not set up the guards: .*gone\.json/);
  });

  it("reports a worker that dies", async () => {
    const setup = replaySetupFor({});
    const entry = new URL(`data:text/javascript,${encodeURIComponent("process.exit(3)")}`);
    await expect(
      evaluateSourcesInWorkers(sources, setup, { workers: 2, entry, request: {}, replayHere: false }),
    ).rejects.toThrow(/replay worker 1 of 1 exited \(code 3\) before its threads were replayed/);
  });
});

describe("workers started before the CLI loads LangChain", () => {
  it("reads --workers from an eval command line, and nothing from any other", () => {
    expect(workersAskedFor(["eval", "threads"])).toBe(availableParallelism());
    expect(workersAskedFor(["eval", "threads", "--workers", "3"])).toBe(3);
    expect(workersAskedFor(["eval", "--workers=4", "threads"])).toBe(4);
    // Left to the CLI, which says what is wrong once it has loaded.
    expect(workersAskedFor(["eval", "threads", "--workers", "two"])).toBeUndefined();
    expect(workersAskedFor(["eval", "threads", "--workers"])).toBeUndefined();
    expect(workersAskedFor(["eval", "threads", "--suggest", "s.json", "--outcomes", "o.json"])).toBeUndefined();
    expect(workersAskedFor(["inspect", "thread.json"])).toBeUndefined();
    expect(workersAskedFor([])).toBeUndefined();
  });

  it("hands a run the workers started for it, which replay as any other worker does", async () => {
    const sources = collectThreadFiles([threads]).files.map((path) => ({ kind: "file" as const, path }));
    const setup = replaySetupFor({ configFile: config });
    const one = await trace((hooks) => evaluateSources(sources, setup, hooks));
    startSpareWorkers(ENTRY, 3);
    const spares = await trace((hooks) =>
      evaluateSourcesInWorkers(
        sources,
        setup,
        { workers: 3, entry: ENTRY, request: { configFile: config }, replayHere: false },
        hooks,
      ),
    );
    expect(spares).toEqual(one);
    // Both were taken: none is left for another run.
    expect(takeSpareWorker(ENTRY)).toBeUndefined();
  });

  it("never hands out a worker that failed while it waited, and outlives its failure", async () => {
    const broken = new URL(`data:text/javascript,${encodeURIComponent('throw new Error("broken entry")')}`);
    startSpareWorkers(broken, 2);
    // Far longer than a worker takes to fail on its first line, even on a busy machine.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(takeSpareWorker(broken)).toBeUndefined();
  }, 20_000);

  it("lets the command end when the run needs none of them", () => {
    // One thread replays here: the worker started for `--workers 2` is never handed out.
    const started = Date.now();
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", fileURLToPath(ENTRY), "eval", join(threads, "007.json"), "--workers", "2"],
      { encoding: "utf8" },
    );
    expect(out).toMatch(/^threads\s+1\b/m);
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});

describe("harness-kit eval --workers", () => {
  it("prints what --workers 1 prints, errors and notes included", async () => {
    for (const extra of [[], ["--jsonl"], ["--config", config]]) {
      const one = await evalOutput([threads, ...extra, "--workers", "1"]);
      expect(one.code).toBe(1); // the unreadable files
      expect(one.stderr).toContain("020-bad.json: bad JSON");
      for (const env of [{}, { HARNESS_KIT_REPLAY_HERE: "0" }] as Record<string, string>[])
        expect(await evalOutput([threads, ...extra, "--workers", "3"], env)).toEqual(one);
    }
  });

  it("takes a whole number of workers, at least one, and only for eval", async () => {
    for (const bad of ["0", "two", "1.5"]) {
      const io = captureIo();
      expect(await runCli(["eval", threads, "--workers", bad], io)).toBe(2);
      expect(io.stderr()).toContain(`--workers takes a whole number of workers, at least 1, got "${bad}"`);
    }
    const io = captureIo();
    expect(await runCli(["inspect", join(threads, "001.json"), "--workers", "2"], io)).toBe(2);
    expect(io.stderr()).toContain("--workers belongs to eval");
  });

  it.skipIf(NO_EVALDATA !== undefined)(
    `prints what --workers 1 prints on ../shared/evaldata${NO_EVALDATA ? ` (${NO_EVALDATA})` : ""}`,
    async () => {
      const one = await evalOutput([EVALDATA, "--jsonl", "--workers", "1"]);
      expect(one.stdout.split("\n").length).toBeGreaterThan(10);
      expect(await evalOutput([EVALDATA, "--jsonl", "--workers", "2"])).toEqual(one);
      expect(await evalOutput([EVALDATA, "--workers", "2"], { HARNESS_KIT_REPLAY_HERE: "0" })).toEqual(
        await evalOutput([EVALDATA, "--workers", "1"]),
      );
    },
  );
});
