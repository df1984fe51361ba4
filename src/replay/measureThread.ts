import type { BaseMessage } from "@langchain/core/messages";
import { markOf } from "../core/marks.js";
import { isSummary, messageKind, toolCallsOf } from "../core/messages.js";
import { CHARS_PER_TOKEN } from "../core/tokens.js";
import { estimatedChars, RunawayLedger, usageOf } from "../guards/runaway/ledger.js";
import { runawayGuardOptions } from "../guards/runaway/options.js";
import { buildReplaySetup } from "./config.js";
import { replayAndForget } from "./forgetThread.js";
import type { DecisionPoint, ThreadMeasures } from "./suggest.js";

/**
 * The loop guards with stops out of reach and every count reported: LoopGuard warns from the
 * first identical call, the progress guard's directives carry its waste count.
 */
const NEVER = 1_000_000;
const MEASURING = buildReplaySetup({
  guards: {
    ProgressAwareLoopGuardMiddleware: { stopAt: NEVER },
    LoopGuardMiddleware: { warnAt: 1, stopAt: NEVER },
  },
});

/**
 * What `--suggest` fits thresholds to, from a thread's messages (with the usage its provider
 * reported, or simulated): its runs' decision points, its runaway factor at each, and the counts
 * its loop guards reach when nothing stops them.
 */
export async function measureThread(
  id: string,
  successful: boolean,
  messages: readonly BaseMessage[],
  minInputTokens: number = runawayGuardOptions.parse({}).minInputTokens,
): Promise<ThreadMeasures> {
  const { runs, tokens, peakRunawayFactor } = spendOf(messages, minInputTokens);
  let peakIdenticalCalls = 0;
  let peakWasted = 0;
  const { decisions } = await replayAndForget(messages, MEASURING.stack);
  for (const { guard, detail, shadowedBy } of decisions) {
    // Live, a guard never sees a call an outer guard answered.
    if (shadowedBy || !detail) continue;
    if (guard === "LoopGuardMiddleware" && typeof detail.count === "number")
      peakIdenticalCalls = Math.max(peakIdenticalCalls, detail.count);
    // The progress guard stops only once a directive was ignored (`refused` > 0).
    if (guard === "ProgressAwareLoopGuardMiddleware" && typeof detail.wasted === "number" && Number(detail.refused) > 0)
      peakWasted = Math.max(peakWasted, detail.wasted);
  }
  return { id, successful, runs, tokens, peakRunawayFactor, peakIdenticalCalls, peakWasted };
}

/**
 * Each run's decision points (model turns with tool calls) with the run's tokens there and what
 * the run spent after, counted as replay counts a stop's tokens (`ReplayStop.tokensAfter`); and
 * the highest runaway factor, as the guard measures it before the turn's calls run.
 */
function spendOf(
  messages: readonly BaseMessage[],
  minInputTokens: number,
): Pick<ThreadMeasures, "runs" | "tokens" | "peakRunawayFactor"> {
  const runs: DecisionPoint[][] = [];
  let run: { points: DecisionPoint[]; spentAt: number[] } = { points: [], spentAt: [] };
  let runSpent = 0;
  const endRun = () => {
    for (let k = 0; k < run.points.length; k++) run.points[k]!.tokensAfter = runSpent - run.spentAt[k]!;
    if (run.points.length > 0) runs.push(run.points);
    run = { points: [], spentAt: [] };
    runSpent = 0;
  };
  const ledger = new RunawayLedger();
  const history: BaseMessage[] = [];
  let tokens = 0;
  let context = 0;
  let peakRunawayFactor = 0;
  for (const message of messages) {
    history.push(message);
    const kind = messageKind(message);
    const chars = estimatedChars(message);
    if (kind === "human" && !isSummary(message)) endRun();
    if (kind === "ai" && markOf(message) === undefined) {
      const spent = callTokens(message, context + chars);
      tokens += spent;
      runSpent += spent;
      if (toolCallsOf(message).length > 0) {
        const measure = ledger.update(history).measureRun(minInputTokens);
        peakRunawayFactor = Math.max(peakRunawayFactor, measure.factor);
        run.points.push({ runTokens: measure.tokens, tokensAfter: 0 });
        run.spentAt.push(runSpent);
      }
    }
    context += chars;
  }
  endRun();
  return { runs, tokens, peakRunawayFactor };
}

/** Tokens of a thread's model calls: their usage, else estimated as replay estimates a stop's tokens. */
export function modelCallTokens(messages: readonly BaseMessage[]): number {
  let tokens = 0;
  let context = 0;
  for (const message of messages) {
    const chars = estimatedChars(message);
    if (messageKind(message) === "ai" && markOf(message) === undefined) tokens += callTokens(message, context + chars);
    context += chars;
  }
  return tokens;
}

/** A model call's input + output tokens: its usage, else the context it read and wrote at 4 characters a token. */
function callTokens(message: BaseMessage, contextChars: number): number {
  return usageOf(message)?.total ?? Math.round(contextChars / CHARS_PER_TOKEN);
}
