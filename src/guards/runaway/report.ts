import type { RunawayLedger, TokenSource } from "./ledger.js";

/**
 * How much of a run's tool work went to subagents (deepagents' `task` tool) and how much was done
 * directly: calls that ran; a refused call handed no work to anyone.
 */
export interface DelegationShare {
  /** Calls to a delegation tool that ran: each handed a task to a subagent. */
  delegatedCalls: number;
  /** Calls to every other tool that ran. */
  directCalls: number;
  /** delegatedCalls / (delegatedCalls + directCalls); 0 for a run without tool calls. */
  delegatedShare: number;
  /** Delegated calls per `subagent_type` argument. */
  bySubagent: Record<string, number>;
}

/** What RunawayGuard observed over one run; handed to `onReport` when the run ends. */
export interface RunawayReport {
  guard: string;
  source: TokenSource;
  /** Tokens the run's model calls consumed (input + output of each). */
  runTokens: number;
  /** Input of the run's first model call (at least `minInputTokens`). */
  inputTokens: number;
  /** The highest runaway factor the run reached: compare it with the guard's thresholds to calibrate them. */
  peakRunawayFactor: number;
  /** Tokens of the model calls that read only tool results that brought nothing new. */
  wastedTokens: number;
  wastedModelCalls: number;
  modelCalls: number;
  /** Tool calls the run's model calls asked for, refused ones included. */
  toolCalls: number;
  delegation: DelegationShare;
}

/** The report of the run the ledger's history ends with. */
export function runawayReport(
  guard: string,
  ledger: RunawayLedger,
  delegationTools: ReadonlySet<string>,
  minInputTokens: number,
): RunawayReport {
  const run = ledger.measureRun(minInputTokens);
  const waste = ledger.measureWaste(minInputTokens);
  let delegatedCalls = 0;
  let directCalls = 0;
  for (const [tool, calls] of ledger.runCallsByTool) {
    if (delegationTools.has(tool)) delegatedCalls += calls;
    else directCalls += calls;
  }
  const bySubagent = new Map<string, number>();
  for (const [tool, types] of ledger.runSubagentsByTool) {
    if (!delegationTools.has(tool)) continue;
    for (const [type, calls] of types) bySubagent.set(type, (bySubagent.get(type) ?? 0) + calls);
  }
  const total = delegatedCalls + directCalls;
  return {
    guard,
    source: run.source,
    runTokens: Math.round(run.tokens),
    inputTokens: Math.round(run.inputTokens),
    peakRunawayFactor: Math.round(waste.peakFactor * 100) / 100,
    wastedTokens: Math.round(waste.wastedTokens),
    wastedModelCalls: waste.wastedCalls,
    modelCalls: run.modelCalls,
    toolCalls: run.toolCalls,
    delegation: {
      delegatedCalls,
      directCalls,
      delegatedShare: total === 0 ? 0 : delegatedCalls / total,
      // fromEntries defines own properties, so a subagent named "__proto__" stays a plain key
      bySubagent: Object.fromEntries(bySubagent),
    },
  };
}
