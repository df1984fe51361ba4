import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  bestPlainCap,
  capTally,
  DEFAULT_MARGINS,
  halfOf,
  peakRunTokens,
  raiseOver,
  suggestedConfig,
  suggestSettings,
  taskIdOf,
  type DecisionPoint,
  type ThreadMeasures,
} from "../../src/replay/suggest.js";
import { buildReplaySetup, type ReplayConfig } from "../../src/replay/config.js";

// The arithmetic of `eval --suggest` on generated threads: per-run decision points (run tokens
// so far, and what the run spent after), peaks of the guards' measures, and an outcome.

/** A run: its model calls' tokens; each decision point's run tokens and tokens after follow from them. */
const run = fc
  .array(fc.integer({ min: 1, max: 500_000 }), { minLength: 1, maxLength: 12 })
  .map((calls): DecisionPoint[] => {
    const total = calls.reduce((a, b) => a + b, 0);
    let spent = 0;
    return calls.map((tokens) => {
      spent += tokens;
      return { runTokens: spent, tokensAfter: total - spent };
    });
  });

const thread = fc
  .record({
    id: fc.string({ minLength: 1, maxLength: 12 }),
    successful: fc.boolean(),
    runs: fc.array(run, { minLength: 1, maxLength: 3 }),
    peakRunawayFactor: fc.double({ min: 0, max: 20, noNaN: true }),
    peakIdenticalCalls: fc.integer({ min: 0, max: 9 }),
    peakWasted: fc.integer({ min: 0, max: 9 }),
  })
  .map((t): ThreadMeasures => ({ ...t, tokens: t.runs.flat().reduce((sum, p) => Math.max(sum, p.runTokens), 0) }));

const threads = fc.array(thread, { minLength: 1, maxLength: 30 });
const margin = fc.double({ min: 0, max: 1, noNaN: true });

describe("suggestSettings", () => {
  it("puts every threshold over the highest successful run by at least the margin, so the cap stops no successful run", () => {
    fc.assert(
      fc.property(threads, margin, margin, fc.integer({ min: 0, max: 3 }), (ts, tokens, factor, count) => {
        const settings = suggestSettings(ts, { tokens, factor, count });
        const successful = ts.filter((t) => t.successful);
        if (successful.length === 0) {
          expect(settings).toBeUndefined();
          return;
        }
        const most = (of: (t: ThreadMeasures) => number) => Math.max(...successful.map(of));
        expect(settings!.maxRunTokens).toBeGreaterThan(most(peakRunTokens));
        expect(settings!.maxRunTokens).toBeGreaterThanOrEqual(most(peakRunTokens) * (1 + tokens));
        expect(settings!.runaway.stopAt).toBeGreaterThan(most((t) => t.peakRunawayFactor));
        expect(settings!.runaway.stopAt).toBeGreaterThanOrEqual(most((t) => t.peakRunawayFactor) * (1 + factor));
        expect(settings!.progressStopAt).toBeGreaterThanOrEqual(most((t) => t.peakWasted) + 1 + count);
        expect(settings!.loopStopAt).toBeGreaterThanOrEqual(most((t) => t.peakIdenticalCalls) + 1 + count);
        const { successful: spared } = capTally(ts, settings!.maxRunTokens);
        expect(spared.stopped).toBe(0);
        expect(spared.tokensAfterStops).toBe(0);
      }),
    );
  });

  it("keeps the runaway tiers in order, and writes a config the replay accepts", () => {
    fc.assert(
      fc.property(threads, (ts) => {
        const settings = suggestSettings(ts.map((t) => ({ ...t, successful: true })))!;
        const { warnAt, blockAt, stopAt } = settings.runaway;
        expect(warnAt).toBeLessThanOrEqual(blockAt);
        expect(blockAt).toBeLessThanOrEqual(stopAt);
        // the guards' constructors check their options: this throws on a bad combination
        expect(buildReplaySetup(suggestedConfig(settings) as ReplayConfig).stack.map((g) => g.guard.name)).toEqual([
          "RunawayGuardMiddleware",
          "ProgressAwareLoopGuardMiddleware",
          "LoopGuardMiddleware",
        ]);
      }),
    );
  });

  it("a failed run over the cap is stopped at its first decision point at or over it, saving what its run spent after", () => {
    fc.assert(
      fc.property(threads, (ts) => {
        const settings = suggestSettings(ts);
        if (!settings) return;
        const tally = capTally(ts, settings.maxRunTokens);
        const failed = ts.filter((t) => !t.successful);
        expect(tally.failed.stopped).toBe(failed.filter((t) => peakRunTokens(t) >= settings.maxRunTokens).length);
        const saved = failed
          .flatMap((t) => t.runs)
          .reduce((sum, r) => sum + (r.find((p) => p.runTokens >= settings.maxRunTokens)?.tokensAfter ?? 0), 0);
        expect(tally.failed.tokensAfterStops).toBe(saved);
      }),
    );
  });
});

describe("bestPlainCap", () => {
  it("stops at most k successful runs, and any lower cap would stop more", () => {
    fc.assert(
      fc.property(threads, fc.integer({ min: 0, max: 4 }), (ts, k) => {
        const cap = bestPlainCap(ts, k);
        expect(capTally(ts, cap).successful.stopped).toBeLessThanOrEqual(k);
        if (cap > 1) expect(capTally(ts, cap - 1).successful.stopped).toBeGreaterThan(k);
      }),
    );
  });
});

describe("raiseOver", () => {
  it("lifts the threshold that stopped a successful run over the value it stopped at", () => {
    const settings = suggestSettings([
      {
        id: "a",
        successful: true,
        runs: [[{ runTokens: 100, tokensAfter: 0 }]],
        tokens: 100,
        peakRunawayFactor: 1,
        peakIdenticalCalls: 1,
        peakWasted: 0,
      },
    ])!;
    expect(
      raiseOver(settings, { guard: "RunawayGuardMiddleware", detail: { cap: "maxRunTokens", tokens: 50_000 } })
        .maxRunTokens,
    ).toBeGreaterThan(50_000);
    expect(
      raiseOver(settings, { guard: "RunawayGuardMiddleware", detail: { runawayFactor: 6.2 } }).runaway.stopAt,
    ).toBeGreaterThan(6.2);
    expect(raiseOver(settings, { guard: "LoopGuardMiddleware", detail: { count: 5 } }).loopStopAt).toBe(
      5 + 1 + DEFAULT_MARGINS.count,
    );
    expect(
      raiseOver(settings, { guard: "ProgressAwareLoopGuardMiddleware", detail: { wasted: 4 } }).progressStopAt,
    ).toBe(4 + 1 + DEFAULT_MARGINS.count);
    // never lowered
    expect(raiseOver(settings, { guard: "LoopGuardMiddleware", detail: { count: 0 } }).loopStopAt).toBe(
      settings.loopStopAt,
    );
  });
});

describe("halfOf", () => {
  it("puts every trial of a task in the same half, and splits tasks near evenly", () => {
    expect(taskIdOf("tau-bench-airline/task8-trial1")).toBe("task8");
    expect(taskIdOf("django__django-11099")).toBe("django__django-11099");
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.nat(9), fc.nat(9), (task, a, b) => {
        expect(halfOf(`${task}-trial${a}`)).toBe(halfOf(`${task}-trial${b}`));
      }),
    );
    const halves = Array.from({ length: 1000 }, (_, i) => halfOf(`task${i}`));
    const ones = halves.filter((h) => h === 1).length;
    expect(ones).toBeGreaterThan(400);
    expect(ones).toBeLessThan(600);
  });
});
