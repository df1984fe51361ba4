import type { GuardAction } from "../core/signals.js";
import { ThreadLoadError } from "./errors.js";
import type { LoadedThread } from "./threads.js";
import { messagesToReplay, type ReplaySetup } from "./config.js";
import { replayThread, type ReplayResult } from "./replayThread.js";
import { findThreadSources, loadThreadSource, type ThreadSearch, type ThreadSource } from "./sources.js";
import { profileThread, type ThreadProfile } from "./threadProfile.js";
import { guardThresholds } from "./thresholds.js";
import { forgetThread } from "./forgetThread.js";
import { runawayGuardOptions } from "../guards/runaway/options.js";

export type { ThreadSource } from "./sources.js";

export const ACTIONS: readonly GuardAction[] = ["warn", "directive", "stop"];

export type ActionCounts = Record<GuardAction, number>;

export interface EvalSummary {
  /** Guards replayed, in the middleware order assumed (a thread's recorded answers may show another: `threadsReordered`). */
  guards: string[];
  /** Where that order comes from. */
  orderSource: string;
  /** Threads whose recorded answers showed the live stack in another order, replayed in that order. */
  threadsReordered: number;
  /** Threads with recorded answers of the replayed guards that the replay does not reproduce. */
  threadsUnreproduced: number;
  threads: number;
  /** Sources that could not be loaded. */
  failed: number;
  toolCalls: number;
  /** Decisions per guard and action. */
  decisions: Record<string, ActionCounts>;
  /** Threads with at least one decision, per guard and action. */
  threadsWith: Record<string, ActionCounts>;
  /** Threads with a run the stack would have stopped. */
  threadsStopped: number;
  /** Model calls and tokens the recorded runs spent after the points where they would have stopped. */
  afterStops: { modelCalls: number; toolCalls: number; tokens: number };
  /** The system prompt's tokens when usage was simulated (`--simulate-usage`). */
  simulatedSystemTokens?: number;
  elapsedMs: number;
}

/** A thread as eval reports it: its id and where it was read from (its messages stay with whoever replayed it). */
export type ThreadLabel = Pick<LoadedThread, "id" | "source">;

/** What else eval knows of a replayed thread: where to load it again, and its profile when the setup asks for one. */
export interface ThreadFacts {
  origin: ThreadSource;
  profile?: ThreadProfile;
}

export interface EvalHooks {
  /** Each replayed thread, in source order. */
  onThread?: (thread: ThreadLabel, replay: ReplayResult, facts: ThreadFacts) => void;
  /** A thread with no messages at all (an empty array): nothing to judge, which may be a mistake. */
  onEmptyThread?: (thread: ThreadLabel) => void;
  /** A source that could not be loaded; the run goes on. */
  onProblem?: (problem: ThreadLoadError) => void;
  /** After each source. */
  onProgress?: (done: number, total: number, toolCalls: number, elapsedMs: number) => void;
}

/**
 * What came of one source: its replay, or why it could not be loaded. Plain data, so a replay
 * worker can hand it to the thread that totals (see `replay/workers.ts`).
 */
export type ThreadOutcome =
  | { kind: "replayed"; thread: ThreadLabel; empty: boolean; replay: ReplayResult; facts: ThreadFacts }
  | { kind: "unreadable"; file: string; reason: string };

/** Loads one source and replays it; a source that cannot be loaded is an outcome, any other failure throws. */
export async function evaluateSource(source: ThreadSource, setup: ReplaySetup): Promise<ThreadOutcome> {
  let thread: LoadedThread;
  try {
    thread = await loadThreadSource(source);
  } catch (error) {
    if (!(error instanceof ThreadLoadError)) throw error;
    return { kind: "unreadable", file: error.file, reason: error.reason };
  }
  const messages = messagesToReplay(thread.messages, setup);
  const replay = await replayThread(messages, setup.stack);
  const facts: ThreadFacts = { origin: source };
  if (setup.profileThreads) {
    const minInputTokens =
      guardThresholds(setup.config).runaway?.minInputTokens ?? runawayGuardOptions.parse({}).minInputTokens;
    facts.profile = await profileThread(messages, setup.observation, minInputTokens);
  }
  forgetThread(messages);
  return {
    kind: "replayed",
    thread: { id: thread.id, source: thread.source },
    empty: thread.messages.length === 0,
    replay,
    facts,
  };
}

/** Totals of a run, fed the outcome of each source in source order; the clock starts when it is made. */
export interface Tally {
  record(outcome: ThreadOutcome): void;
  finish(): EvalSummary;
}

export function startTally(setup: ReplaySetup, total: number, hooks: EvalHooks = {}): Tally {
  const started = process.hrtime.bigint();
  const elapsedMs = () => Number(process.hrtime.bigint() - started) / 1e6;
  const guards = setup.stack.map(({ guard }) => guard.name);
  const summary: EvalSummary = {
    guards,
    orderSource: setup.orderSource,
    threadsReordered: 0,
    threadsUnreproduced: 0,
    threads: 0,
    failed: 0,
    toolCalls: 0,
    decisions: Object.fromEntries(guards.map((g) => [g, zeroCounts()])),
    threadsWith: Object.fromEntries(guards.map((g) => [g, zeroCounts()])),
    threadsStopped: 0,
    afterStops: { modelCalls: 0, toolCalls: 0, tokens: 0 },
    elapsedMs: 0,
    ...(setup.simulateUsage ? { simulatedSystemTokens: setup.simulateUsage.systemTokens } : {}),
  };
  let done = 0;
  const record = (outcome: ThreadOutcome) => {
    done++;
    if (outcome.kind === "unreadable") {
      summary.failed++;
      hooks.onProblem?.(new ThreadLoadError(outcome.file, outcome.reason));
      hooks.onProgress?.(done, total, summary.toolCalls, elapsedMs());
      return;
    }
    const { thread, replay } = outcome;
    if (outcome.empty) hooks.onEmptyThread?.(thread);
    summary.threads++;
    summary.toolCalls += replay.toolCalls;
    if (replay.orderEvidence.length > 0) summary.threadsReordered++;
    if (replay.unreproduced.length > 0) summary.threadsUnreproduced++;
    const flagged = new Map<string, Set<GuardAction>>();
    for (const { guard, action, shadowedBy, afterStop } of replay.decisions) {
      // What the stack did: a call an outer guard already answered is not this guard's doing,
      // and a call after the run would have stopped was never made.
      if (shadowedBy || afterStop) continue;
      summary.decisions[guard]![action]++;
      flagged.set(guard, (flagged.get(guard) ?? new Set()).add(action));
    }
    if (replay.stops.length > 0) summary.threadsStopped++;
    for (const stop of replay.stops) {
      summary.afterStops.modelCalls += stop.modelCallsAfter;
      summary.afterStops.toolCalls += stop.toolCallsAfter;
      summary.afterStops.tokens += stop.tokensAfter;
    }
    for (const [guard, actions] of flagged) for (const action of actions) summary.threadsWith[guard]![action]++;
    hooks.onThread?.(thread, replay, outcome.facts);
    hooks.onProgress?.(done, total, summary.toolCalls, elapsedMs());
  };
  return {
    record,
    finish: () => {
      summary.elapsedMs = elapsedMs();
      return summary;
    },
  };
}

/** Replays every source through the guard stack, one after another in this thread, and totals what the guards would have done. */
export async function evaluateSources(
  sources: readonly ThreadSource[],
  setup: ReplaySetup,
  hooks: EvalHooks = {},
): Promise<EvalSummary> {
  const tally = startTally(setup, sources.length, hooks);
  for (const source of sources) tally.record(await evaluateSource(source, setup));
  return tally.finish();
}

/** How a run replays its sources: `evaluateSources`, or `evaluateSourcesInWorkers` bound to its workers. */
export type SourcesEvaluator = (
  sources: readonly ThreadSource[],
  setup: ReplaySetup,
  hooks: EvalHooks,
) => Promise<EvalSummary>;

/**
 * Finds the threads a search names and replays them all (see `evaluateSources`); a path or a
 * database that could not be found is reported through `onProblem` and counts as failed.
 * Undefined when the search found nothing at all, not even a problem.
 */
export async function evaluateSearch(
  search: ThreadSearch,
  setup: ReplaySetup,
  hooks: EvalHooks = {},
  evaluate: SourcesEvaluator = evaluateSources,
): Promise<EvalSummary | undefined> {
  const { sources, problems } = await findThreadSources(search);
  for (const problem of problems) hooks.onProblem?.(problem);
  if (sources.length === 0 && problems.length === 0) return undefined;
  const summary = await evaluate(sources, setup, hooks);
  summary.failed += problems.length;
  return summary;
}

function zeroCounts(): ActionCounts {
  return { warn: 0, directive: 0, stop: 0 };
}
