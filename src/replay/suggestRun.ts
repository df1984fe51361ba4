import type { BaseMessage } from "@langchain/core/messages";
import { buildReplaySetup, type ReplayConfig } from "./config.js";
import { measureThread, modelCallTokens } from "./measureThread.js";
import type { ReplayResult, ReplayStop, StackedGuard } from "./replayThread.js";
import { replayAndForget } from "./forgetThread.js";
import {
  bestPlainCap,
  capTally,
  DEFAULT_MARGINS,
  emptyTally,
  halfOf,
  raiseOver,
  suggestedConfig,
  suggestSettings,
  tally,
  type Margins,
  type StopTally,
  type SuggestedSettings,
  type ThreadMeasures,
} from "./suggest.js";

/** A saved thread with its outcome; `messages` loads it ready to replay (usage simulated if asked), each time anew. */
export interface LabelledThread {
  id: string;
  successful: boolean;
  messages: () => Promise<BaseMessage[]>;
}

/** At most this many replays of the successful threads to raise thresholds the guards reach together. */
const MAX_CHECKS = 6;

export interface Fit {
  settings: SuggestedSettings;
  /** What each fitted thread measured. */
  measures: ThreadMeasures[];
  /** Successful fitted threads the settings still stop (none, unless the checks ran out). */
  successfulStopped: number;
}

/**
 * Thresholds over every successful thread of `threads` (see `suggestSettings`), then checked the
 * way eval replays them: while the whole stack still stops a successful thread, the threshold
 * that stopped it is raised over it (`raiseOver`). Undefined without a successful thread.
 */
export async function fitThresholds(
  threads: readonly LabelledThread[],
  margins: Margins = DEFAULT_MARGINS,
): Promise<Fit | undefined> {
  const measures: ThreadMeasures[] = [];
  for (const thread of threads)
    measures.push(await measureThread(thread.id, thread.successful, await thread.messages()));
  let settings = suggestSettings(measures, margins);
  if (!settings) return undefined;
  const successful = threads.filter((t) => t.successful);
  let stopped = 0;
  for (let check = 0; check < MAX_CHECKS; check++) {
    const { stack } = buildReplaySetup(suggestedConfig(settings) as ReplayConfig);
    const before: SuggestedSettings = settings;
    stopped = 0;
    for (const thread of successful) {
      const { stops, decisions } = await replayAndForget(await thread.messages(), stack);
      if (stops.length === 0) continue;
      stopped++;
      for (const stop of stops) {
        const decision = decisions.find(
          (d) => d.guard === stop.guard && d.toolCallId === stop.toolCallId && d.action === "stop",
        );
        settings = raiseOver(
          settings,
          { guard: stop.guard, ...(decision?.detail ? { detail: decision.detail } : {}) },
          margins,
        );
      }
    }
    if (stopped === 0 || settings === before) break;
  }
  return { settings, measures, successfulStopped: stopped };
}

/** What a replay of each thread through `stack` stops, by outcome, with the tokens the runs spent after their stops. */
export async function scoreStack(
  threads: readonly LabelledThread[],
  stack: readonly StackedGuard[],
  onThread?: (thread: LabelledThread, replay: ReplayResult) => void,
): Promise<StopTally> {
  const out = emptyTally();
  for (const thread of threads) {
    const messages = await thread.messages();
    const replay = await replayAndForget(messages, stack);
    tally(
      out,
      { successful: thread.successful, tokens: modelCallTokens(messages) },
      replay.stops.length > 0,
      replay.stops.reduce((sum, stop) => sum + stop.tokensAfter, 0),
    );
    onThread?.(thread, replay);
  }
  return out;
}

/** What `--suggest` found: the fitted settings, and what they and the alternatives do to the scored threads. */
export interface SuggestReport {
  fitted: { threads: number; successful: number };
  fit: Fit;
  /** The threads scored: all of them, or with `holdout` the half not fitted. */
  scored: { threads: number; successful: number };
  /** Replayed with the suggested settings. */
  suggested: StopTally;
  /** The suggested settings' stops by what made them (`stopperOf`): threads and tokens after the stops, by outcome. */
  suggestedBy: Record<string, { failed: number; failedTokens: number; successful: number }>;
  /** What each scored thread measured (for other caps than those above). */
  scoredMeasures: ThreadMeasures[];
  /** Replayed with eval's default stack. */
  defaultStack: StopTally;
  /** The suggested `maxRunTokens` alone. */
  capAlone: StopTally;
  /** The plain cap that, on the scored threads themselves, saves the most while stopping as many successful threads as the suggestion. */
  bestCap: { cap: number; tally: StopTally };
}

/**
 * Fits thresholds to the threads (with `fitHalf`, to the half whose task ids hash to it, see
 * `halfOf`) and scores them, the default stack, the suggested cap alone and the best plain cap on
 * the threads scored (with `fitHalf`, the other half). Undefined when no fitted thread succeeded.
 */
export async function suggestThresholds(
  threads: readonly LabelledThread[],
  options: { fitHalf?: 0 | 1; margins?: Margins } = {},
): Promise<SuggestReport | undefined> {
  const { fitHalf } = options;
  const fitted = fitHalf === undefined ? threads : threads.filter((t) => halfOf(t.id) === fitHalf);
  const scored = fitHalf === undefined ? threads : threads.filter((t) => halfOf(t.id) !== fitHalf);
  const fit = await fitThresholds(fitted, options.margins);
  if (!fit) return undefined;
  const measured = new Map(fit.measures.map((m) => [m.id, m]));
  const scoredMeasures: ThreadMeasures[] = [];
  for (const thread of scored)
    scoredMeasures.push(
      measured.get(thread.id) ?? (await measureThread(thread.id, thread.successful, await thread.messages())),
    );
  const suggestedBy: SuggestReport["suggestedBy"] = {};
  const suggested = await scoreStack(
    scored,
    buildReplaySetup(suggestedConfig(fit.settings) as ReplayConfig).stack,
    (thread, replay) => {
      for (const stop of replay.stops) {
        const by = (suggestedBy[stopperOf(stop)] ??= { failed: 0, failedTokens: 0, successful: 0 });
        if (thread.successful) by.successful++;
        else {
          by.failed++;
          by.failedTokens += stop.tokensAfter;
        }
      }
    },
  );
  const cap = bestPlainCap(scoredMeasures, suggested.successful.stopped);
  return {
    fitted: { threads: fitted.length, successful: fitted.filter((t) => t.successful).length },
    fit,
    scored: { threads: scored.length, successful: scored.filter((t) => t.successful).length },
    suggested,
    suggestedBy,
    scoredMeasures,
    defaultStack: await scoreStack(scored, buildReplaySetup().stack),
    capAlone: capTally(scoredMeasures, fit.settings.maxRunTokens),
    bestCap: { cap, tally: capTally(scoredMeasures, cap) },
  };
}

/** What made a stop: one of the runaway guard's token caps or its factor, or the loop guard that stopped. */
export function stopperOf(stop: Pick<ReplayStop, "guard" | "reason">): string {
  if (stop.guard !== "RunawayGuardMiddleware") return stop.guard;
  const cap = /\((maxRunTokens|maxThreadTokens)\)/.exec(stop.reason);
  return cap ? cap[1]! : "runaway factor";
}
