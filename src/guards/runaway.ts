import { ALLOW, type CallDecision, type Decision } from "../core/decision.js";
import type { ToolCallView } from "../core/messages.js";
import type { RunawayLedger, RunMeasure, ThreadMeasure } from "./runawayLedger.js";

export interface RunawaySettings {
  /** Repetition factor at which a `warn` signal is emitted (once per run, when it is crossed). */
  warnAt: number;
  /** Repetition factor from which calls to tools already asked for in this run are refused. */
  blockAt: number;
  /** Repetition factor at which the run stops. */
  stopAt: number;
  /** The run's input counts as at least this many tokens. */
  minInputTokens: number;
  /** Tokens a run may consume before it stops; undefined: no cap. */
  maxRunTokens: number | undefined;
  /** Tokens a thread may consume before its runs stop; undefined: no cap. */
  maxThreadTokens: number | undefined;
}

/**
 * RunawayGuard's decision on a batch of pending calls, made after the model call that asked for
 * them. A token cap or the stop tier stops the run (the stop rides on the first call; its
 * siblings are answered as not run). In the block tier, a call to a tool that an earlier model
 * call of this run asked for, or that appears earlier in the same batch, gets a directive; other
 * tools pass. Crossing `warnAt` with this model call emits one warning.
 */
export function decideRunaway(ledger: RunawayLedger, pending: readonly ToolCallView[], settings: RunawaySettings): CallDecision[] {
  const [first] = pending;
  if (first === undefined) return [];
  const run = ledger.measureRun(settings.minInputTokens);
  const stop = capStop(run, settings.maxThreadTokens === undefined ? undefined : ledger.measureThread(), settings) ?? factorStop(run, settings);
  if (stop) return pending.map((call) => ({ call, decision: call === first ? stop : ALLOW }));

  if (run.factor >= settings.blockAt) {
    const askedInBatch = new Set<string>();
    return pending.map((call) => {
      const repeated = ledger.askedBeforeLatestCall(call.name) || askedInBatch.has(call.name);
      askedInBatch.add(call.name);
      return { call, decision: repeated ? blockDecision(call.name, run, settings) : ALLOW };
    });
  }

  const crossedWarn = run.factor >= settings.warnAt && run.factorBefore < settings.warnAt;
  return pending.map((call) => ({
    call,
    decision: crossedWarn && call === first
      ? { action: "warn", reason: `${runawayReason(run)}; warning at ${settings.warnAt}×`, detail: factorDetail(run, "warn", settings.warnAt) }
      : ALLOW,
  }));
}

/**
 * Whether a run may make its first model call: only a thread already at its token cap stops it,
 * since later calls are judged after each model call by `decideRunaway`.
 */
export function decideRunStart(ledger: RunawayLedger, settings: RunawaySettings): Decision {
  if (settings.maxThreadTokens === undefined) return ALLOW;
  const run = ledger.measureRun(settings.minInputTokens);
  return run.modelCalls > 0 ? ALLOW : (capStop(run, ledger.measureThread(), settings) ?? ALLOW);
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
    reason: `the ${scope} consumed ${formatTokens(tokens)} tokens, reaching its cap of ${formatTokens(limit)} (${cap})`,
    message: budgetSpentAnswer(),
    detail: { cap, limit, tokens: Math.round(tokens), source },
  };
}

function factorStop(run: RunMeasure, settings: RunawaySettings): Decision | undefined {
  if (run.factor < settings.stopAt) return undefined;
  return {
    action: "stop",
    reason: `${runawayReason(run)}; stopping at ${settings.stopAt}×`,
    message: budgetSpentAnswer(),
    detail: factorDetail(run, "stop", settings.stopAt),
  };
}

function blockDecision(tool: string, run: RunMeasure, settings: RunawaySettings): Decision {
  return {
    action: "directive",
    reason: `${runawayReason(run)}; "${tool}" was already called in this run (blocking repeats from ${settings.blockAt}×)`,
    message: repeatedToolDirective(tool, run.factor),
    detail: factorDetail(run, "block", settings.blockAt),
  };
}

function factorDetail(run: RunMeasure, tier: "warn" | "block" | "stop", threshold: number): Record<string, unknown> {
  return {
    tier,
    threshold,
    repetitionFactor: round2(run.factor),
    runTokens: Math.round(run.tokens),
    inputTokens: Math.round(run.inputTokens),
    source: run.source,
    modelCalls: run.modelCalls,
    toolCalls: run.toolCalls,
  };
}

/** Read by the user (signals, the stop notice): how far the run has gone. */
export function runawayReason(run: RunMeasure): string {
  return (
    `the run consumed ${formatFactor(run.factor)} its input in tokens ` +
    `(${formatTokens(run.tokens)} tokens over ${run.modelCalls} model calls for an input of ${formatTokens(run.inputTokens)}, ${sourceText(run.source)})`
  );
}

/** Read by the model: the answer to a call refused in the block tier. */
export function repeatedToolDirective(tool: string, factor: number): string {
  return (
    `Not run: this request has already consumed ${formatFactor(factor)} its input in tokens and "${tool}" was called before, so repeats are refused. ` +
    `Answer with the results you already have, or use a tool you have not called yet.`
  );
}

/** Read by the model (on a later request): the answer to a call that a stop or a token cap prevented. */
export function budgetSpentAnswer(): string {
  return "Not run: the token budget of this request was spent, so the run stopped before this call. Work from the results you already have.";
}

function sourceText(source: string): string {
  return source === "usage_metadata" ? "from the model's usage_metadata" : "estimated at 4 characters per token";
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
