import { pendingToolCalls } from "../src/core/messages.js";
import { decideRunaway, type RunawaySettings } from "../src/guards/runaway/decide.js";
import { RunawayLedger } from "../src/guards/runaway/ledger.js";
import { RunawayGuardMiddleware } from "../src/guards/runaway/RunawayGuardMiddleware.js";
import { overheadRows } from "./agentOverhead.js";
import { fmt, measure, nowMicros, summarise, verdict } from "./timing.js";
import { syntheticThread } from "./threads.js";

const SETTINGS: RunawaySettings = {
  warnAt: 15,
  blockAt: 25,
  stopAt: 40,
  minInputTokens: 1000,
  maxRunTokens: 5_000_000,
  maxThreadTokens: 50_000_000,
};

/**
 * One step as the live hook pays for it: a ledger that already holds `history` calls takes the
 * next model call and its result, then decides on the following batch.
 */
function perStep(history: number): ReturnType<typeof summarise> {
  const thread = syntheticThread(history + 200);
  const samples: number[] = [];
  for (let round = 0; round < 5; round++) {
    const ledger = new RunawayLedger().update(thread.slice(0, 1 + 2 * history));
    for (let k = 0; k < 200; k++) {
      const upto = thread.slice(0, 2 + 2 * (history + k)); // ends with a pending AI message
      const start = nowMicros();
      decideRunaway(ledger.update(upto), pendingToolCalls(upto), SETTINGS);
      samples.push(nowMicros() - start);
    }
  }
  return summarise(samples);
}

async function decisionNumbers(rows: string[]): Promise<void> {
  perStep(100); // warm up
  const at100 = perStep(100);
  const at10k = perStep(10_000);
  rows.push(
    `| decision per step (ledger update + decision), 100 calls of history | p50 ${fmt(at100.p50)} (p95 ${fmt(at100.p95)}) | p50 ≤ 20 µs | ${verdict(at100.p50 <= 20)} |`,
  );
  rows.push(
    `| decision per step, 10,000 calls of history | p50 ${fmt(at10k.p50)} (p95 ${fmt(at10k.p95)}; ${(at10k.p50 / at100.p50).toFixed(2)}× the cost at 100) | ≤ 2× the cost at 100 | ${verdict(at10k.p50 <= 2 * at100.p50)} |`,
  );
  const big = syntheticThread(10_000);
  const rebuild = await measure(
    () => decideRunaway(new RunawayLedger().update(big), pendingToolCalls(big), SETTINGS),
    15,
    3,
  );
  rows.push(
    `| first decision on a restored 10,000-call thread (full rebuild) | ${fmt(rebuild.p50)} (p95 ${fmt(rebuild.p95)}) | ≤ 50 ms | ${verdict(rebuild.p50 <= 50_000)} |`,
  );
}

// Thresholds out of reach: a 200-step loop re-reading a small context would otherwise be stopped at 40×.
// No usage_metadata in the script: the guard takes its heavier path, estimating every message.
const QUIET = { warnAt: 10_000, blockAt: 10_000, stopAt: 10_000 };

export default async function runawayBench(): Promise<string> {
  const rows = ["| measurement | result | target | |", "|---|---|---|---|"];
  await decisionNumbers(rows);
  await overheadRows(
    "RunawayGuardMiddleware (estimating)",
    "createAgent",
    () => [new RunawayGuardMiddleware(QUIET)],
    0.05,
    rows,
  );
  return `## RunawayGuard\n\n${rows.join("\n")}`;
}
