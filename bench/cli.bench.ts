// `harness-kit eval` throughput over ../shared/evaldata: end to end (read, parse, replay) and the
// replay alone, against the cost of only reading and parsing the same files.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildReplaySetup } from "../src/replay/config.js";
import { evaluateSources } from "../src/replay/evaluate.js";
import { replayThread } from "../src/replay/replayThread.js";
import { collectThreadFiles, loadThreadFile } from "../src/replay/sources.js";
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
  if (!existsSync(EVALDATA)) return "## harness-kit eval\n\nSkipped: ../shared/evaldata is not present.";
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
    for (const thread of threads) await replayThread(thread.messages, stack);
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
  return `## harness-kit eval over ../shared/evaldata\n\n${ROUNDS} rounds after a warm-up, one process.\n\n${rows.join("\n")}`;
}
