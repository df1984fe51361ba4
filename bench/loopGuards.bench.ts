import { LoopGuardMiddleware, ProgressAwareLoopGuardMiddleware } from "../src/index.js";
import { ObservationStore } from "../src/observe.js";
import { loadHasher } from "../src/observe/hash.js";
import { decideIdenticalCalls } from "../src/guards/loop/identicalCalls.js";
import { changesStateByName, decideNoProgress } from "../src/guards/progress/noProgress.js";
import { argsKeyOf } from "../src/observe/argsIdentity.js";
import { overheadRows } from "./agentOverhead.js";
import { fmt, measure, nowMicros, verdict } from "./timing.js";
import { syntheticThread } from "./threads.js";

async function storeNumbers(rows: string[]): Promise<void> {
  const hash = await loadHasher();
  const big = syntheticThread(10_000);
  const rebuild = await measure(() => new ObservationStore(hash).update(big), 15, 3);
  rows.push(
    `| full rebuild, 10,000-call thread | ${fmt(rebuild.p50)} (p95 ${fmt(rebuild.p95)}) | ≤ 50 ms | ${verdict(rebuild.p50 <= 50_000)} |`,
  );

  // Incremental: a store already holding `history` calls takes 200 more, one call (AI + tool
  // message) at a time; cost per call = the batch's time / 200, best of 5 rounds.
  const perCall = async (history: number) => {
    const thread = syntheticThread(history + 200);
    const grown = Array.from({ length: 200 }, (_, k) => thread.slice(0, 1 + 2 * (history + k + 1))); // same message objects
    let best = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 5; round++) {
      const store = new ObservationStore(hash);
      store.update(thread.slice(0, 1 + 2 * history));
      const start = nowMicros();
      for (const upto of grown) store.update(upto);
      best = Math.min(best, (nowMicros() - start) / grown.length);
    }
    return { p50: best };
  };
  const at100 = await perCall(100);
  const at10k = await perCall(10_000);
  const ratio = at10k.p50 / at100.p50;
  rows.push(
    `| incremental cost per new call, 100 calls of history (mean over 200 new calls, best of 5) | ${fmt(at100.p50)} | | |`,
  );
  rows.push(
    `| incremental cost per new call, 10,000 calls of history | ${fmt(at10k.p50)} (${ratio.toFixed(2)}× the cost at 100) | ≤ 2× | ${verdict(ratio <= 2)} |`,
  );

  // A decision at 1,000 calls of history, observations ready (content hashing excluded).
  const thousand = syntheticThread(1_000);
  const store = new ObservationStore(hash);
  store.update(thousand);
  const args = { path: "src/module_7.py", line: 1, options: { recursive: false, depth: 1 } };
  const key = argsKeyOf("read_file", args, hash);
  const pending = [{ call: { id: "p", name: "read_file", args }, key, argsKey: key }];
  const noProgress = {
    stopAt: 3,
    progressFloor: 0.01,
    ignoreTools: new Set(["think"]),
    changesState: changesStateByName(new Set(), new Set()),
  };
  const identical = { warnAt: 3, stopAt: 5, window: undefined, ignoreTools: new Set(["think"]), progressFloor: 0.02 };
  const progressDecision = await measure(() => decideNoProgress(store, pending, noProgress), 20_000);
  const identicalDecision = await measure(() => decideIdenticalCalls(store, pending, identical), 20_000);
  rows.push(
    `| ProgressAwareLoopGuard decision, 1,000 calls of history | p50 ${fmt(progressDecision.p50)} (p95 ${fmt(progressDecision.p95)}) | p50 ≤ 20 µs | ${verdict(progressDecision.p50 <= 20)} |`,
  );
  rows.push(
    `| LoopGuard decision, 1,000 calls of history | p50 ${fmt(identicalDecision.p50)} (p95 ${fmt(identicalDecision.p95)}) | p50 ≤ 20 µs | ${verdict(identicalDecision.p50 <= 20)} |`,
  );
}

export default async function loopGuardsBench(): Promise<string> {
  const rows = ["| measurement | result | target | |", "|---|---|---|---|"];
  await storeNumbers(rows);
  await overheadRows(
    "both loop guards",
    "createAgent",
    () => [new LoopGuardMiddleware(), new ProgressAwareLoopGuardMiddleware()],
    0.05,
    rows,
  );
  return `## Observation store and loop guards\n\n${rows.join("\n")}`;
}
