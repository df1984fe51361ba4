import type { GuardAction } from "../core/signals.js";
import { ACTIONS, type ActionCounts, type ThreadFacts, type ThreadLabel } from "./evaluate.js";
import { countInto, histogram, type Histogram } from "./histogram.js";
import type { RunOutcome } from "./outcomes.js";
import type { ReplayResult } from "./replayThread.js";
import type { ThreadSource } from "./sources.js";

/** A thread as a fleet report lists it: enough to rank it and to load it again for its own page. */
export interface FleetThread {
  id: string;
  source: string;
  origin: ThreadSource;
  toolCalls: number;
  wastedTokens: number;
  peakRunawayFactor: number;
  /** Tokens the recorded runs spent after the points where the stack would have stopped them. */
  tokensAfterStops: number;
  /** The strongest action the stack would have taken on the thread. */
  worst?: GuardAction;
  outcome?: RunOutcome;
}

/** Totals over a set of threads: every thread, or those of one outcome. */
export interface FleetGroup {
  threads: number;
  toolCalls: number;
  /** Decisions per guard, signal code and action; threads with at least one, the same way. */
  decisions: Record<string, Record<string, ActionCounts>>;
  threadsWith: Record<string, Record<string, ActionCounts>>;
  /** Threads on which a guard would have changed something (a directive or a stop), per guard. */
  threadsChanged: Record<string, number>;
  /** Threads the stack would have stopped. */
  threadsStopped: number;
  wastedTokens: number;
  tokensAfterStops: number;
  charts: {
    toolCallsPerThread: Histogram;
    peakRunawayFactor: Histogram;
    resultSizes: Histogram;
    repeatsPerCall: Histogram;
  };
}

export interface FleetReport {
  all: FleetGroup;
  /** Present when outcomes were given: the same totals per outcome, and for the threads the outcomes do not name. */
  byOutcome?: Record<RunOutcome | "unknown", FleetGroup>;
  /** The threads that wasted the most tokens, most first (those that wasted none left out). */
  topWasted: FleetThread[];
  /** The threads with the highest peak runaway factor, highest first. */
  topRunaway: FleetThread[];
}

/** Bucket edges of each chart: wide at the top, since each spans a few orders of magnitude. */
export const CHART_EDGES = {
  toolCallsPerThread: [0, 1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 500],
  peakRunawayFactor: [0, 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 50],
  resultSizes: [0, 10, 100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000],
  repeatsPerCall: [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 15, 20, 50],
} as const;

/**
 * Folds replayed threads into a fleet report as they come, holding only totals, fixed histograms
 * and the `top` threads of each ranking: a million threads take the memory of a few.
 */
export class FleetTally {
  private readonly all: FleetGroup;
  private readonly byOutcome: Record<RunOutcome | "unknown", FleetGroup> | undefined;
  private readonly topWasted: FleetThread[] = [];
  private readonly topRunaway: FleetThread[] = [];

  constructor(
    private readonly guards: readonly string[],
    private readonly top: number,
    withOutcomes: boolean,
  ) {
    this.all = emptyGroup(guards);
    this.byOutcome = withOutcomes
      ? { success: emptyGroup(guards), failure: emptyGroup(guards), unknown: emptyGroup(guards) }
      : undefined;
  }

  add(thread: ThreadLabel, replay: ReplayResult, facts: ThreadFacts, outcome?: RunOutcome): void {
    const profile = facts.profile;
    const listed: FleetThread = {
      id: thread.id,
      source: thread.source,
      origin: facts.origin,
      toolCalls: replay.toolCalls,
      wastedTokens: profile?.wastedTokens ?? 0,
      peakRunawayFactor: profile?.peakRunawayFactor ?? 0,
      tokensAfterStops: replay.stops.reduce((n, stop) => n + stop.tokensAfter, 0),
      ...(outcome ? { outcome } : {}),
    };
    const acted = addTo(this.all, replay, listed);
    if (acted) listed.worst = acted;
    if (this.byOutcome) addTo(this.byOutcome[outcome ?? "unknown"], replay, listed);
    if (profile) {
      for (const group of this.groupsOf(outcome)) {
        for (const size of profile.resultSizes) countInto(group.charts.resultSizes, size);
        for (const repeats of profile.repeats) countInto(group.charts.repeatsPerCall, repeats);
        countInto(group.charts.peakRunawayFactor, profile.peakRunawayFactor);
      }
    }
    if (listed.wastedTokens > 0) keepTop(this.topWasted, listed, this.top, (t) => t.wastedTokens);
    if (listed.peakRunawayFactor > 0) keepTop(this.topRunaway, listed, this.top, (t) => t.peakRunawayFactor);
  }

  report(): FleetReport {
    return {
      all: this.all,
      ...(this.byOutcome ? { byOutcome: this.byOutcome } : {}),
      topWasted: this.topWasted,
      topRunaway: this.topRunaway,
    };
  }

  private groupsOf(outcome: RunOutcome | undefined): FleetGroup[] {
    return this.byOutcome ? [this.all, this.byOutcome[outcome ?? "unknown"]] : [this.all];
  }
}

function emptyGroup(guards: readonly string[]): FleetGroup {
  return {
    threads: 0,
    toolCalls: 0,
    decisions: Object.fromEntries(guards.map((g) => [g, {}])),
    threadsWith: Object.fromEntries(guards.map((g) => [g, {}])),
    threadsChanged: Object.fromEntries(guards.map((g) => [g, 0])),
    threadsStopped: 0,
    wastedTokens: 0,
    tokensAfterStops: 0,
    charts: {
      toolCallsPerThread: histogram(CHART_EDGES.toolCallsPerThread),
      peakRunawayFactor: histogram(CHART_EDGES.peakRunawayFactor),
      resultSizes: histogram(CHART_EDGES.resultSizes),
      repeatsPerCall: histogram(CHART_EDGES.repeatsPerCall),
    },
  };
}

/** Adds a thread's decisions and figures to a group; the strongest action the stack would take on it. */
function addTo(group: FleetGroup, replay: ReplayResult, thread: FleetThread): GuardAction | undefined {
  group.threads++;
  group.toolCalls += replay.toolCalls;
  group.wastedTokens += thread.wastedTokens;
  group.tokensAfterStops += thread.tokensAfterStops;
  countInto(group.charts.toolCallsPerThread, replay.toolCalls);
  if (replay.stops.length > 0) group.threadsStopped++;
  const seen = new Set<string>();
  const changedBy = new Set<string>();
  let worst = -1;
  for (const { guard, code, action, shadowedBy, afterStop } of replay.decisions) {
    // What the stack did, as eval's totals count it: not a call an outer guard answered, nor one after a stop.
    if (shadowedBy || afterStop) continue;
    const byCode = (group.decisions[guard] ??= {});
    (byCode[code] ??= zeroCounts())[action]++;
    const key = `${guard}\u0000${code}\u0000${action}`;
    if (!seen.has(key)) {
      seen.add(key);
      ((group.threadsWith[guard] ??= {})[code] ??= zeroCounts())[action]++;
    }
    if (action !== "warn") changedBy.add(guard);
    worst = Math.max(worst, ACTIONS.indexOf(action));
  }
  for (const guard of changedBy) group.threadsChanged[guard] = (group.threadsChanged[guard] ?? 0) + 1;
  return worst < 0 ? undefined : ACTIONS[worst];
}

/** Inserts `thread` into `list` (kept sorted, highest first, at most `top` long); an earlier thread wins a tie. */
function keepTop(list: FleetThread[], thread: FleetThread, top: number, score: (t: FleetThread) => number): void {
  const value = score(thread);
  if (list.length >= top && value <= score(list[list.length - 1]!)) return;
  let at = list.length;
  while (at > 0 && score(list[at - 1]!) < value) at--;
  list.splice(at, 0, thread);
  if (list.length > top) list.pop();
}

function zeroCounts(): ActionCounts {
  return { warn: 0, directive: 0, stop: 0 };
}
