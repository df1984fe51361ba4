import { ALLOW, type CallDecision, type Decision } from "../../core/decision.js";
import type { ToolCallView } from "../../core/messages.js";
import { CHARS_PER_TOKEN } from "../../core/tokens.js";
import type { RunawayLedger, RunMeasure, ThreadMeasure } from "./ledger.js";
import { budgetSpentAnswer, repeatedCallDirective, stalledAnswer } from "./texts.js";

export interface RunawaySettings {
  /** Runaway factor at which a `warn` signal is emitted (when it is crossed). */
  warnAt: number;
  /** Runaway factor from which calls that repeat an earlier call of this run are refused. */
  blockAt: number;
  /** Runaway factor at which the run stops. */
  stopAt: number;
  /** The input, and the context the factor is measured against, count as at least this many tokens. */
  minInputTokens: number;
  /** Tokens a run may consume before it stops; undefined: no cap. */
  maxRunTokens: number | undefined;
  /** Tokens a thread may consume before its runs stop; undefined: no cap. */
  maxThreadTokens: number | undefined;
}

/**
 * RunawayGuard's decision on a batch of pending calls, made after the model call that asked for
 * them. A token cap or the stop tier stops the run (the stop rides on the first call; its
 * siblings are answered as not run). In the block tier, a call that repeats one this run already
 * made (same tool, same arguments), or one earlier in the same batch (of the calls that reach
 * the guard), gets a directive; new calls pass, since they are how the run can learn something
 * again. Crossing `warnAt` with this model call emits one warning.
 */
export function decideRunaway(
  ledger: RunawayLedger,
  pending: readonly ToolCallView[],
  settings: RunawaySettings,
): CallDecision[] {
  if (!idle(ledger, settings)) return judgeRunaway(ledger, pending, settings);
  const allowed: CallDecision[] = [];
  for (const call of pending) allowed.push({ call, decision: ALLOW });
  return allowed;
}

/**
 * `decideRunaway` without the bound that lets the common step skip it: the run measured and every
 * tier and cap judged. Exported for the property test that pins the two to the same answers.
 */
export function judgeRunaway(
  ledger: RunawayLedger,
  pending: readonly ToolCallView[],
  settings: RunawaySettings,
): CallDecision[] {
  const [first] = pending;
  if (first === undefined) return [];
  const run = ledger.measureRun(settings.minInputTokens);
  const stop = turnStop(ledger, run, settings);
  if (stop) return pending.map((call) => ({ call, decision: call === first ? stop : ALLOW }));

  if (run.factor >= settings.blockAt) {
    const inBatch = new Set<string>();
    return pending.map((call) => {
      const key = ledger.callKey(call);
      const repeated = ledger.answeredInRun(key) || inBatch.has(key);
      inBatch.add(key);
      return { call, decision: repeated ? blockDecision(call.name, run, settings) : ALLOW };
    });
  }

  const crossedWarn = run.factor >= settings.warnAt && run.factorBefore < settings.warnAt;
  return pending.map((call) => ({
    call,
    decision:
      crossedWarn && call === first
        ? {
            action: "warn",
            code: "runaway_factor",
            reason: `${runawayReason(run)}; warning at ${settings.warnAt}×`,
            detail: factorDetail(run, "warn", settings.warnAt),
          }
        : ALLOW,
  }));
}

/**
 * Whether the run stops after its latest model turn, whatever that turn's calls: at a token cap
 * or at the stop tier. The middleware asks before a model call when no call of the latest turn
 * reached the guard (it had none, the repair guard answers them all, or an outer guard answered
 * them); at a run's start, only a thread already at its cap stops it.
 */
export function decideTurn(ledger: RunawayLedger, settings: RunawaySettings): Decision {
  return idle(ledger, settings) ? ALLOW : judgeTurn(ledger, settings);
}

/** `decideTurn` without the bound that lets the common step skip it (see `judgeRunaway`). */
export function judgeTurn(ledger: RunawayLedger, settings: RunawaySettings): Decision {
  return turnStop(ledger, ledger.measureRun(settings.minInputTokens), settings) ?? ALLOW;
}

/**
 * Whether nothing can be decided but "allow", known without measuring the run. The stall is empty,
 * so the factor is 0: below the block and stop tiers when they are above 0 (as options require),
 * and no warning, which needs the factor to cross `warnAt` from the factor before it, never below 0.
 * And neither the run nor the thread can have consumed a cap's tokens. This is the common step:
 * the latest model call read something new, and the caps are far away or unset.
 */
function idle(ledger: RunawayLedger, settings: RunawaySettings): boolean {
  return (
    settings.blockAt > 0 &&
    settings.stopAt > 0 &&
    ledger.idleBelow(Math.min(settings.maxRunTokens ?? Infinity, settings.maxThreadTokens ?? Infinity))
  );
}

function turnStop(ledger: RunawayLedger, run: RunMeasure, settings: RunawaySettings): Decision | undefined {
  return (
    capStop(run, settings.maxThreadTokens === undefined ? undefined : ledger.measureThread(), settings) ??
    factorStop(run, settings)
  );
}

function capStop(run: RunMeasure, thread: ThreadMeasure | undefined, settings: RunawaySettings): Decision | undefined {
  if (settings.maxRunTokens !== undefined && run.tokens >= settings.maxRunTokens) {
    return capDecision("maxRunTokens", "run", run.tokens, settings.maxRunTokens, run.source);
  }
  if (thread && settings.maxThreadTokens !== undefined && thread.tokens >= settings.maxThreadTokens) {
    return capDecision("maxThreadTokens", "thread", thread.tokens, settings.maxThreadTokens, thread.source);
  }
  return undefined;
}

function capDecision(cap: string, scope: "run" | "thread", tokens: number, limit: number, source: string): Decision {
  return {
    action: "stop",
    code: scope === "run" ? "run_token_cap" : "thread_token_cap",
    reason: `the ${scope} consumed ${formatTokens(tokens)} tokens, reaching its cap of ${formatTokens(limit)} (${cap})`,
    message: budgetSpentAnswer(),
    detail: { cap, limit, tokens: Math.round(tokens), source },
  };
}

function factorStop(run: RunMeasure, settings: RunawaySettings): Decision | undefined {
  if (run.factor < settings.stopAt) return undefined;
  return {
    action: "stop",
    code: "runaway_factor",
    reason: `${runawayReason(run)}; stopping at ${settings.stopAt}×`,
    message: stalledAnswer(),
    detail: factorDetail(run, "stop", settings.stopAt),
  };
}

function blockDecision(tool: string, run: RunMeasure, settings: RunawaySettings): Decision {
  return {
    action: "directive",
    code: "runaway_factor",
    reason: `${runawayReason(run)}; this "${tool}" call repeats an earlier one (blocking repeats from ${settings.blockAt}×)`,
    message: repeatedCallDirective(tool, run.stallCalls),
    detail: factorDetail(run, "block", settings.blockAt),
  };
}

function factorDetail(run: RunMeasure, tier: "warn" | "block" | "stop", threshold: number): Record<string, unknown> {
  return {
    tier,
    threshold,
    runawayFactor: round2(run.factor),
    stallCalls: run.stallCalls,
    stallTokens: Math.round(run.stallTokens),
    baseTokens: Math.round(run.baseTokens),
    runTokens: Math.round(run.tokens),
    source: run.source,
    modelCalls: run.modelCalls,
    toolCalls: run.toolCalls,
  };
}

/** Read by the user (signals, the stop notice): how long the run has gone without learning anything. */
export function runawayReason(run: RunMeasure): string {
  return (
    `the run re-read its context ${formatFactor(run.factor)} over since a tool last brought something new ` +
    `(${formatTokens(run.stallTokens)} tokens over ${run.stallCalls} model call${run.stallCalls === 1 ? "" : "s"} against a context of ${formatTokens(run.baseTokens)}, ${sourceText(run.source)})`
  );
}

function sourceText(source: string): string {
  return source === "usage_metadata"
    ? "from the model's usage_metadata"
    : `estimated at ${CHARS_PER_TOKEN} characters per token`;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

function formatFactor(factor: number): string {
  return `${factor >= 10 ? factor.toFixed(1) : factor.toFixed(2)}×`;
}

// One formatter for every call: `toLocaleString` builds a new one each time, which is slow.
const TOKENS_FORMAT = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

function formatTokens(tokens: number): string {
  return TOKENS_FORMAT.format(Math.round(tokens));
}
