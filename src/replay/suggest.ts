// Thresholds fitted to a user's own threads: pure arithmetic over what each thread measured, so
// the same figures come out of `harness-kit eval --suggest`, the docs' table and the tests.

/** A model turn that asked for tool calls: where a guard decides, and what the run spent after it. */
export interface DecisionPoint {
  /** Tokens the run had consumed, this turn's model call included (what `maxRunTokens` reads). */
  runTokens: number;
  /** Tokens of the run's model calls after this turn, up to the run's end: what a stop here saves. */
  tokensAfter: number;
}

/** What one thread measured, with its outcome. */
export interface ThreadMeasures {
  id: string;
  successful: boolean;
  /** Its runs (from one user message to the next), each a list of decision points in order. */
  runs: DecisionPoint[][];
  /** Tokens of all its model calls. */
  tokens: number;
  /** The highest runaway factor it reached (see RunawayGuardMiddleware). */
  peakRunawayFactor: number;
  /** The highest identical-call count LoopGuardMiddleware gave a decision at (0: none). */
  peakIdenticalCalls: number;
  /** The highest waste ProgressAwareLoopGuardMiddleware counted at a decision (0: none). */
  peakWasted: number;
}

/** The thresholds `--suggest` proposes, as the guards' options name them. */
export interface SuggestedSettings {
  maxRunTokens: number;
  runaway: { warnAt: number; blockAt: number; stopAt: number };
  progressStopAt: number;
  loopStopAt: number;
}

/** How far above the highest successful run each threshold goes. */
export interface Margins {
  /** Fraction over the largest successful run's tokens for `maxRunTokens`. Default 0.25. */
  tokens: number;
  /** Fraction over the highest successful runaway factor for the stop tier. Default 0.25. */
  factor: number;
  /** Counts over the highest successful count for the loop guards' `stopAt`. Default 1. */
  count: number;
}

export const DEFAULT_MARGINS: Margins = { tokens: 0.25, factor: 0.25, count: 1 };

/** The runaway guard's tiers keep the proportions of its defaults (warn 4, block 5, stop 8). */
const WARN_SHARE = 4 / 8;
const BLOCK_SHARE = 5 / 8;
/** Never below the guards' own floors: a stop tier under 2× would stop a run at its second idle call. */
const MIN_FACTOR_STOP = 2;
const MIN_COUNT_STOP = 2;

/** The highest run tokens a thread reached at a decision point: a cap at or below it stops the thread. */
export function peakRunTokens(thread: ThreadMeasures): number {
  let peak = 0;
  for (const run of thread.runs) for (const point of run) peak = Math.max(peak, point.runTokens);
  return peak;
}

/**
 * Thresholds with a margin over every successful thread: each is strictly above the highest value
 * a successful thread reached, so none of them would have been stopped by the measure it read.
 * Without successful threads there is nothing to fit: undefined.
 */
export function suggestSettings(
  threads: readonly ThreadMeasures[],
  margins: Margins = DEFAULT_MARGINS,
): SuggestedSettings | undefined {
  const successful = threads.filter((t) => t.successful);
  if (successful.length === 0) return undefined;
  const most = (of: (t: ThreadMeasures) => number) => Math.max(...successful.map(of));
  const stopAt = factorAbove(
    most((t) => t.peakRunawayFactor),
    margins.factor,
  );
  return {
    maxRunTokens: tokensAbove(most(peakRunTokens), margins.tokens),
    runaway: runawayTiers(stopAt),
    progressStopAt: countAbove(
      most((t) => t.peakWasted),
      margins.count,
    ),
    loopStopAt: countAbove(
      most((t) => t.peakIdenticalCalls),
      margins.count,
    ),
  };
}

/** The runaway tiers for a stop tier, in the defaults' proportions, on a half-factor grid. */
export function runawayTiers(stopAt: number): SuggestedSettings["runaway"] {
  return { warnAt: halfStep(stopAt * WARN_SHARE), blockAt: halfStep(stopAt * BLOCK_SHARE), stopAt };
}

/** A cap over `peak` by at least `margin` of it, and at least one token over, rounded up to 1,000 tokens. */
export function tokensAbove(peak: number, margin: number): number {
  return Math.ceil(Math.max(peak * (1 + margin), peak + 1) / 1_000) * 1_000;
}

/** A factor over `peak` by at least `margin` of it, rounded up to a half. */
export function factorAbove(peak: number, margin: number): number {
  const above = Math.ceil(Math.max(peak * (1 + margin), peak + 0.01) * 2) / 2;
  return Math.max(MIN_FACTOR_STOP, above);
}

/** A count over `peak` by at least one, plus `margin`. */
export function countAbove(peak: number, margin: number): number {
  return Math.max(MIN_COUNT_STOP, Math.floor(peak) + 1 + Math.max(0, Math.round(margin)));
}

function halfStep(n: number): number {
  return Math.max(0.5, Math.floor(n * 2) / 2);
}

/** What a stop rule did to a set of threads, split by outcome. */
export interface StopTally {
  successful: { threads: number; stopped: number; tokens: number; tokensAfterStops: number };
  failed: { threads: number; stopped: number; tokens: number; tokensAfterStops: number };
}

export function emptyTally(): StopTally {
  return {
    successful: { threads: 0, stopped: 0, tokens: 0, tokensAfterStops: 0 },
    failed: { threads: 0, stopped: 0, tokens: 0, tokensAfterStops: 0 },
  };
}

/** Adds one thread: whether it was stopped, and the tokens its runs spent after their stops. */
export function tally(
  into: StopTally,
  thread: Pick<ThreadMeasures, "successful" | "tokens">,
  stopped: boolean,
  tokensAfterStops: number,
): StopTally {
  const side = thread.successful ? into.successful : into.failed;
  side.threads++;
  side.tokens += thread.tokens;
  if (stopped) side.stopped++;
  side.tokensAfterStops += tokensAfterStops;
  return into;
}

/** What a plain per-run token cap alone does: each run stops at its first decision point at or over the cap. */
export function capTally(threads: readonly ThreadMeasures[], cap: number): StopTally {
  const out = emptyTally();
  for (const thread of threads) {
    let saved = 0;
    let stopped = false;
    for (const run of thread.runs) {
      const stop = run.find((point) => point.runTokens >= cap);
      if (stop) {
        stopped = true;
        saved += stop.tokensAfter;
      }
    }
    tally(out, thread, stopped, saved);
  }
  return out;
}

/**
 * The plain cap that saves the most tokens of failed threads while stopping at most
 * `successfulStops` successful ones: just over the peak of the successful thread ranked
 * `successfulStops + 1` from the top (a lower cap saves more on every thread, so the lowest
 * allowed is the best). With no more successful threads than that, any cap is allowed: 1 token.
 */
export function bestPlainCap(threads: readonly ThreadMeasures[], successfulStops: number): number {
  const peaks = threads
    .filter((t) => t.successful)
    .map(peakRunTokens)
    .sort((a, b) => b - a);
  const spared = peaks[successfulStops];
  return spared === undefined ? 1 : Math.floor(spared) + 1;
}

/**
 * Which half of a split a thread falls in, by its task: the thread id (or file name) without a
 * trailing `-trial<n>` / `-run<n>` (so every trial of a task lands in the same half), hashed (FNV-1a).
 * Deterministic, and independent of which other threads are present.
 */
export function halfOf(threadId: string): 0 | 1 {
  return (fnv1a(taskIdOf(threadId)) & 1) as 0 | 1;
}

export function taskIdOf(threadId: string): string {
  const base = threadId
    .slice(Math.max(threadId.lastIndexOf("/"), threadId.lastIndexOf("\\")) + 1)
    .replace(/\.json$/i, "");
  return base.replace(/-(trial|run)\d+$/, "");
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  // The low bit of FNV-1a follows the last character's parity alone: fold the high bits in.
  return (hash ^ (hash >>> 16)) >>> 0;
}

/** Where a stop of a successful thread came from, as its replayed decision reports it. */
export interface SuccessfulStop {
  guard: string;
  detail?: Record<string, unknown>;
}

/**
 * The settings raised just over what stopped a successful thread: the thresholds fitted to each
 * measure alone can still meet a stop that only the guards together reach (a refusal of one
 * guard makes another's count grow). Unchanged when the stop names no threshold of ours.
 */
export function raiseOver(
  settings: SuggestedSettings,
  stop: SuccessfulStop,
  margins: Margins = DEFAULT_MARGINS,
): SuggestedSettings {
  const detail = stop.detail ?? {};
  const number = (key: string) => (typeof detail[key] === "number" ? (detail[key] as number) : undefined);
  if (stop.guard === "RunawayGuardMiddleware") {
    const tokens = number("tokens");
    if (detail.cap === "maxRunTokens" && tokens !== undefined)
      return { ...settings, maxRunTokens: Math.max(settings.maxRunTokens, tokensAbove(tokens, margins.tokens)) };
    const factor = number("runawayFactor");
    if (factor !== undefined)
      return {
        ...settings,
        runaway: runawayTiers(Math.max(settings.runaway.stopAt, factorAbove(factor, margins.factor))),
      };
  }
  const count =
    stop.guard === "LoopGuardMiddleware"
      ? number("count")
      : stop.guard === "ProgressAwareLoopGuardMiddleware"
        ? number("wasted")
        : undefined;
  if (count === undefined) return settings;
  return stop.guard === "LoopGuardMiddleware"
    ? { ...settings, loopStopAt: Math.max(settings.loopStopAt, countAbove(count, margins.count)) }
    : { ...settings, progressStopAt: Math.max(settings.progressStopAt, countAbove(count, margins.count)) };
}

/** LoopGuard warns at 3 by default; a lower stop needs a warning no later than it. */
const LOOP_WARN_AT = 3;

/** The settings as a `--config` file (src/replay/config.ts reads it), in recommendedGuards' order. */
export function suggestedConfig(settings: SuggestedSettings): { guards: Record<string, Record<string, number>> } {
  return {
    guards: {
      RunawayGuardMiddleware: { ...settings.runaway, maxRunTokens: settings.maxRunTokens },
      ProgressAwareLoopGuardMiddleware: { stopAt: settings.progressStopAt },
      LoopGuardMiddleware: { warnAt: Math.min(LOOP_WARN_AT, settings.loopStopAt), stopAt: settings.loopStopAt },
    },
  };
}
