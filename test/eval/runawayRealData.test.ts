import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BaseMessage } from "@langchain/core/messages";
import { buildReplaySetup } from "../../src/replay/config.js";
import type { ReplayedDecision, StackedGuard } from "../../src/replay/replayThread.js";
import { loadThreadFile } from "../../src/replay/sources.js";
import { simulateUsage } from "../../src/replay/simulateUsage.js";
import { toolCallsOf } from "../../src/core/messages.js";
import {
  billedTokens,
  carryOn,
  firstStop,
  INCIDENT,
  incidentThread,
  replayWithUsage,
  runawayStack,
} from "../../bench/runawayShapes.js";

// The requirements of issue 19 on the recorded third-party runs, with the usage a provider would
// have reported simulated over a system prompt of 8,000 and of 2,000 tokens. The data lives
// outside the repository (../shared/evaldata); without it these tests are skipped.
const EVALDATA = join(import.meta.dirname, "..", "..", "..", "shared", "evaldata");
if (!existsSync(EVALDATA))
  console.log(`test/eval/runawayRealData.test.ts skipped: the recorded runs are not at ${EVALDATA}`);
const SYSTEM_PROMPTS = [8_000, 2_000];
/** Repeats a carried-on stuck episode may take, beyond its recorded calls, before the guard alone stops it. */
const CARRY_ON_LIMIT = 10;

interface Episode {
  thread: string;
  kind: string;
  calls: string[];
}

const episodes = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "fixtures", "loop-episodes.json"), "utf8"),
) as { stuck: Episode[] };

const threadOf = (key: string): BaseMessage[] => loadThreadFile(join(EVALDATA, "threads", `${key}.json`)).messages;

function successfulBySource(): Map<string, string[]> {
  const index = JSON.parse(readFileSync(join(EVALDATA, "index.json"), "utf8")) as {
    threads: Array<{ thread: string; outcome: Record<string, unknown> }>;
  };
  const bySource = new Map<string, string[]>();
  for (const { thread, outcome } of index.threads) {
    if (outcome.resolved !== true && outcome.reward !== 1) continue;
    const source = thread.split("/")[0]!;
    bySource.set(source, [...(bySource.get(source) ?? []), thread]);
  }
  return bySource;
}

/** Per source: successful runs given a stop, and given a directive, by `guard`. */
async function hitsOnSuccessful(stack: () => StackedGuard[], systemTokens: number, guard: string) {
  const out: Array<{ source: string; runs: number; stopped: number; directed: number }> = [];
  for (const [source, threads] of successfulBySource()) {
    let stopped = 0;
    let directed = 0;
    for (const thread of threads) {
      const decisions = (await replayWithUsage(threadOf(thread), stack(), systemTokens)).filter(
        (d) => d.guard === guard,
      );
      if (decisions.some((d) => d.action === "stop")) stopped++;
      if (decisions.some((d) => d.action === "directive")) directed++;
    }
    out.push({ source, runs: threads.length, stopped, directed });
  }
  return out;
}

function expectWithinTargets(rows: Array<{ source: string; runs: number; stopped: number; directed: number }>) {
  expect(rows.map((r) => r.source).sort()).toEqual(["mini-swe-agent-swebench", "tau-bench-airline"]);
  const all = rows.reduce(
    (sum, r) => ({ runs: sum.runs + r.runs, stopped: sum.stopped + r.stopped, directed: sum.directed + r.directed }),
    { runs: 0, stopped: 0, directed: 0 },
  );
  expect(all.runs).toBeGreaterThan(400);
  for (const r of [...rows, { source: "all", ...all }]) {
    expect(r.stopped / r.runs, `${r.source}: stopped`).toBeLessThanOrEqual(0.005);
    expect(r.directed / r.runs, `${r.source}: directed`).toBeLessThanOrEqual(0.03);
  }
}

describe.runIf(existsSync(EVALDATA))("RunawayGuard on ../shared/evaldata with simulated usage, default options", () => {
  for (const systemTokens of SYSTEM_PROMPTS) {
    it(`stops at most 0.5% and directs at most 3% of the successful runs of each source (${systemTokens}-token system prompt)`, async () => {
      expectWithinTargets(await hitsOnSuccessful(() => runawayStack(), systemTokens, "RunawayGuardMiddleware"));
    });

    it(`alone, stops every stuck episode carried on within ${CARRY_ON_LIMIT} more repeats (${systemTokens}-token system prompt)`, async () => {
      const late: string[] = [];
      // A read-only command re-run with the same short output spends next to nothing a repeat, and
      // the runaway guard answers spend: those episodes are the loop guards' (by the 3rd call, below).
      for (const episode of episodes.stuck.filter((e) => e.kind !== "read-only-reread")) {
        const carried = carryOn(threadOf(episode.thread), episode.calls, 3 * CARRY_ON_LIMIT);
        const lastCall = carried.flatMap((m) => toolCallsOf(m)).findIndex((c) => c.id === episode.calls.at(-1));
        const stop = firstStop(carried, await replayWithUsage(carried, runawayStack(), systemTokens), systemTokens);
        if (stop === undefined || stop.callIndex - lastCall > CARRY_ON_LIMIT)
          late.push(`${episode.thread}: ${stop ? `repeat ${stop.callIndex - lastCall}` : "never"}`);
      }
      expect(late).toEqual([]);
    });

    it(`alone, stops the 111-call, 6.5 M-token incident by its 31st call and 1.8 M tokens (${systemTokens}-token system prompt)`, async () => {
      const incident = incidentThread() as unknown as BaseMessage[];
      const stop = firstStop(incident, await replayWithUsage(incident, runawayStack(), systemTokens), systemTokens);
      expect(stop).toBeDefined();
      expect(stop!.callIndex).toBeLessThanOrEqual(30);
      expect(stop!.tokens).toBeLessThan(1_800_000);
    });
  }

  it("the incident rebuilt has the report's figures: 111 calls of one tool over 5 inputs, 6.5 M tokens, 42.8× its input", () => {
    const incident = simulateUsage(incidentThread() as unknown as BaseMessage[], INCIDENT.systemTokens);
    const calls = incident.flatMap((m) => toolCallsOf(m));
    expect(calls).toHaveLength(111);
    expect(new Set(calls.map((c) => c.name))).toEqual(new Set(["read_input"]));
    expect(new Set(calls.map((c) => JSON.stringify(c.args))).size).toBe(5);
    const tokens = billedTokens(incident);
    expect(tokens / 6_500_000).toBeCloseTo(1, 2);
    const firstInput = (
      incident.find((m) => toolCallsOf(m).length > 0) as unknown as { usage_metadata: { input_tokens: number } }
    ).usage_metadata.input_tokens;
    expect(tokens / firstInput).toBeCloseTo(42.8, 1);
  });

  it("with the loop guards, as `harness-kit eval --simulate-usage` replays them, stays within the targets and still answers at least 90% of the stuck episodes by their 3rd call", async () => {
    const stack = () => buildReplaySetup().stack;
    const anyGuard = async (systemTokens: number) => {
      const rows: Array<{ source: string; runs: number; stopped: number; directed: number }> = [];
      for (const [source, threads] of successfulBySource()) {
        let stopped = 0;
        let directed = 0;
        for (const thread of threads) {
          // What the stack does live: judgements of calls an outer guard had answered are left out.
          const decisions: ReplayedDecision[] = (await replayWithUsage(threadOf(thread), stack(), systemTokens)).filter(
            (d) => !d.shadowedBy && !d.afterStop,
          );
          if (decisions.some((d) => d.action === "stop")) stopped++;
          if (decisions.some((d) => d.action === "directive")) directed++;
        }
        rows.push({ source, runs: threads.length, stopped, directed });
      }
      return rows;
    };
    expectWithinTargets(await anyGuard(8_000));
    const late: string[] = [];
    for (const episode of episodes.stuck) {
      const firstThree = new Set(episode.calls.slice(0, 3));
      const decisions = await replayWithUsage(threadOf(episode.thread), stack(), 8_000);
      if (
        !decisions.some((d) => (d.action === "directive" || d.action === "stop") && firstThree.has(d.toolCallId ?? ""))
      )
        late.push(episode.thread);
    }
    expect(late.length / episodes.stuck.length, late.join(", ")).toBeLessThanOrEqual(0.1);
  });
});
