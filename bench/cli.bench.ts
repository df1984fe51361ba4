// `harness-kit eval` throughput over ../shared/evaldata: end to end (read, parse, replay) and the
// replay alone, against the cost of only reading and parsing the same files.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildReplaySetup } from "../src/replay/config.js";
import { evaluateSources } from "../src/replay/evaluate.js";
import { replayAndForget } from "../src/replay/forgetThread.js";
import { collectThreadFiles, loadThreadFile } from "../src/replay/sources.js";
import { syntheticThread } from "./threads.js";
import { summarise, verdict } from "./timing.js";

const EVALDATA = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..", "shared", "evaldata", "threads");
const ROUNDS = 5;

async function timeRounds(fn: () => Promise<unknown> | unknown): Promise<number[]> {
  await fn(); // warm up
  const seconds: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = process.hrtime.bigint();
    await fn();
    seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  return seconds;
}

export default async function cliBench(): Promise<string> {
  if (!existsSync(EVALDATA)) {
    // Made-up threads instead (bench/threads.ts), for the worker rows: 600 threads of 40 calls.
    const dir = mkdtempSync(join(tmpdir(), "hk-bench-eval-"));
    const generated = Array.from({ length: 600 }, (_, n) => {
      const path = join(dir, `${String(n).padStart(4, "0")}.json`);
      writeFileSync(path, JSON.stringify(syntheticThread(40, `t${n}-`)));
      return { kind: "file" as const, path };
    });
    const rows = await workerRows(dir, generated.length);
    rmSync(dir, { recursive: true, force: true });
    return `## harness-kit eval\n\n../shared/evaldata is not present: only the worker rows, over generated threads.\n\n${rows}`;
  }
  const { files } = collectThreadFiles([EVALDATA]);
  const sources = files.map((path) => ({ kind: "file" as const, path }));
  let calls = 0;

  const parseOnly = await timeRounds(() => {
    for (const file of files) JSON.parse(readFileSync(file, "utf8"));
  });
  const endToEnd = await timeRounds(async () => {
    calls = (await evaluateSources(sources, buildReplaySetup())).toolCalls;
  });
  const threads = files.map(loadThreadFile);
  const replayOnly = await timeRounds(async () => {
    const { stack } = buildReplaySetup();
    // As eval does after each thread: the next round meets no cache of this one.
    for (const thread of threads) await replayAndForget(thread.messages, stack);
  });

  const rate = (seconds: number) => Math.round(calls / seconds).toLocaleString("en-US");
  const e2e = summarise(endToEnd);
  const replay = summarise(replayOnly);
  const parse = summarise(parseOnly);
  const rows = [
    "| measurement | p50 | p95 | target |",
    "|---|---|---|---|",
    `| \`eval\` end to end: read, parse, replay both guards (${files.length} threads, ${calls.toLocaleString("en-US")} tool calls) | ${rate(e2e.p50)} calls/s (${e2e.p50.toFixed(2)} s) | ${rate(e2e.p95)} calls/s | ≥ 20,000 calls/s ${verdict(calls / e2e.p50 >= 20_000)} |`,
    `| replay alone, threads already parsed | ${rate(replay.p50)} calls/s (${replay.p50.toFixed(2)} s) | ${rate(replay.p95)} calls/s | |`,
    `| baseline: read and JSON.parse the same files, nothing else | ${rate(parse.p50)} calls/s (${parse.p50.toFixed(2)} s) | ${rate(parse.p95)} calls/s | |`,
    `| end to end ÷ baseline | ${(e2e.p50 / parse.p50).toFixed(2)}× the time of reading and parsing | | |`,
  ];
  return `## harness-kit eval over ../shared/evaldata\n\n${ROUNDS} rounds after a warm-up, one process.\n\n${rows.join("\n")}\n\n${await workerRows(EVALDATA, files.length)}`;
}

/** The built CLI: the worker rows run it as a user does (`npm run build` first). */
const BUILT_CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const WORKER_ROUNDS = 3;

/**
 * `harness-kit eval --workers 1` against `--workers 2` (this thread and one worker thread): the
 * built CLI in a process of its own each time, the two taking turns round after round, so the
 * machine's drift meets both. The time is the one the CLI reports: from the listing of the
 * threads to the last replay (the process's own start left out, the same for both; the worker
 * starts during it). Over the threads once, and eight times over (the folder named eight times,
 * 170,000 calls): a deployment's month is far longer still.
 *
 * The last column is what this machine allows: one worker's process already keeps more than one
 * core busy (V8 compiles and collects garbage on threads of its own), read from the CPU time
 * bash's `times` reports for it. No number of workers can go faster than the cores there are
 * divided by the cores one worker keeps busy.
 */
async function workerRows(dir: string, threads: number): Promise<string> {
  if (!existsSync(BUILT_CLI))
    return "### `eval --workers` (issue 30)\n\nSkipped: no build (run `npm run build` first).";
  const cores = availableParallelism();
  const rows = [
    "| threads | `--workers 1` p50 | `--workers 2` p50 | speed-up (ratio of p50s; per round) | target | cores one worker keeps busy: the ceiling |",
    "|---|---|---|---|---|---|",
  ];
  for (const copies of [1, 8]) {
    let calls = 0;
    const busy: number[] = [];
    const run = (workers: number) => {
      const command = [process.execPath, BUILT_CLI, "eval", ...Array.from({ length: copies }, () => dir)];
      const start = process.hrtime.bigint();
      const out = execFileSync("bash", ["-c", `"$@" --workers ${workers}; times`, "bash", ...command], {
        encoding: "utf8",
        maxBuffer: 1 << 26,
      });
      const wall = Number(process.hrtime.bigint() - start) / 1e9;
      calls = Number(/^tool calls\s+([\d,]+)/m.exec(out)![1]!.replaceAll(",", ""));
      // `times` prints the shell's own CPU time, then its children's: user and system, as `0m1.234s`.
      const [user, system] = [
        ...out
          .trimEnd()
          .split("\n")
          .at(-1)!
          .matchAll(/(\d+)m([\d.]+)s/g),
      ].map(([, m, sec]) => Number(m) * 60 + Number(sec));
      if (workers === 1) busy.push((user! + system!) / wall);
      return Number(/^throughput .*\(([\d.]+) s\)/m.exec(out)![1]);
    };
    run(1);
    run(2); // warm-up: the file cache
    busy.length = 0;
    const one: number[] = [];
    const two: number[] = [];
    for (let i = 0; i < WORKER_ROUNDS; i++) {
      one.push(run(1));
      two.push(run(2));
    }
    const rate = (seconds: number) =>
      `${Math.round(calls / seconds).toLocaleString("en-US")} calls/s (${seconds.toFixed(2)} s)`;
    const [p1, p2] = [summarise(one).p50, summarise(two).p50];
    const perRound = one.map((s, i) => (s / two[i]!).toFixed(2)).join(", ");
    const used = summarise(busy).p50;
    rows.push(
      `| ${threads * copies} (${calls.toLocaleString("en-US")} tool calls) | ${rate(p1)} | ${rate(p2)} | ${(p1 / p2).toFixed(2)}× (${perRound}) | ≥ 1.7× ${verdict(p1 / p2 >= 1.7)} | ${used.toFixed(2)} of ${cores}: at most ${(cores / used).toFixed(2)}× |`,
    );
  }
  return `### \`eval --workers\` (issue 30)\n\nThe built CLI, ${WORKER_ROUNDS} rounds after a warm-up, taking turns, ${cores} cores.\n\n${rows.join("\n")}`;
}
