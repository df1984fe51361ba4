import { ALLOW, type CallDecision, type Decision, type ExitBehavior } from "./decision.js";
import { unusableCallIds } from "./marks.js";
import { toolCallsOf, type ToolCallView } from "./messages.js";

// Which calls of a batch a guard judges, and what its decisions do to the batch. The live hook
// (hooks/batchGuard.ts) and replay (replay/replayThread.ts) both go through these rules, so a
// replayed thread shows what the live stack would have done.

/** The two settings that decide whether a guard's decisions act, or are only signalled. */
export interface GuardMode {
  /** Observe-only guards signal but never answer a call. */
  observeOnly: boolean;
  /** `"directive"` keeps refusing at a stop instead of ending the run. */
  exitBehavior: ExitBehavior;
}

/**
 * The calls of a model turn a guard judges: every call for the repair middleware; for the others,
 * those its review did not find unusable, which the repair middleware answers and explains better.
 */
export function judgedCalls(asking: unknown, judgesUnusableCalls = false): readonly ToolCallView[] {
  const calls = toolCallsOf(asking);
  const unusable = judgesUnusableCalls ? undefined : unusableCallIds(asking);
  return unusable?.size ? calls.filter((call) => !unusable.has(call.id)) : calls;
}

/** The stop a batch ends the run with: `decision`, decided on `call`. */
export interface BatchStop {
  reason: string;
  decision: Refusal;
  call: ToolCallView;
}

/**
 * The stop that ends the run, answering every call of the batch: the first stop decision, unless
 * the guard only observes or refuses at a stop instead (exitBehavior `"directive"`).
 */
export function batchStop(decisions: readonly CallDecision[], mode: GuardMode): BatchStop | undefined {
  for (const { call, decision } of decisions)
    if (stopsRun(decision, mode)) return { reason: decision.reason, decision, call };
  return undefined;
}

/**
 * A guard's decisions with its first stop among the calls it judged live (`judgedLive`) moved to
 * the first call that `reaches` the guard, when the call it was on never does: the call that
 * reaches it signals the stop and says why it did not run. A stop about the turn (the runaway
 * guard's, on the turn's first call) moves from a call answered before the tools node or by an
 * outer guard; any stop moves from a call a middleware before the guards answered while the guard
 * judged the batch (hooks/batchGuard.ts).
 */
export function onReachingCall(
  decisions: readonly CallDecision[],
  reaches: (call: ToolCallView) => boolean,
  judgedLive: (call: ToolCallView) => boolean = () => true,
): readonly CallDecision[] {
  const from = decisions.findIndex(({ call, decision }) => decision.action === "stop" && judgedLive(call));
  if (from < 0 || reaches(decisions[from]!.call)) return decisions;
  const to = decisions.findIndex(({ call }) => reaches(call));
  if (to < 0) return decisions;
  const moved = [...decisions];
  const own = decisions[to]!.decision;
  const carried = { call: decisions[to]!.call, decision: decisions[from]!.decision };
  moved[from] = { call: decisions[from]!.call, decision: ALLOW };
  // A stop of the call's own is the one it carries; a directive or a warning stands beside it
  // (live signalled it when the call came).
  if (own.action === "allow") moved[to] = carried;
  else if (own.action !== "stop") moved.splice(to + 1, 0, carried);
  return moved;
}

/** Whether a decision ends the run: a stop, unless the guard only observes or refuses at a stop instead. */
export function stopsRun(decision: Decision, mode: GuardMode): decision is Refusal {
  return decision.action === "stop" && !mode.observeOnly && mode.exitBehavior !== "directive";
}

/** A decision that keeps its call from running: a directive, or a stop (which refuses its own call). */
export type Refusal = Extract<Decision, { action: "directive" | "stop" }>;

/** Whether the guard answers the call itself instead of letting the tool run. */
export function refuses(decision: Decision | undefined, observeOnly: boolean): decision is Refusal {
  return !observeOnly && (decision?.action === "directive" || decision?.action === "stop");
}

/** What happens to one call of a batch. */
export type CallOutcome =
  /** The tool runs. */
  | { kind: "runs" }
  /** The batch's `stop` ended the run: the call is answered, not run. `own` is the call's own refusal, if it had one. */
  | { kind: "stopped"; stop: BatchStop; own: Refusal | undefined }
  /** The guard refused this call: the model reads the refusal's message instead of the tool's result. */
  | { kind: "refused"; own: Refusal };

/**
 * One call's outcome from the guard's own decision on it and the batch's stop: an observe-only
 * guard lets every tool run, a stop answers every call, a directive or a stop on the call refuses it.
 */
export function callOutcome(own: Decision | undefined, stop: BatchStop | undefined, observeOnly: boolean): CallOutcome {
  if (observeOnly) return { kind: "runs" };
  const refusal = refuses(own, observeOnly) ? own : undefined;
  if (stop) return { kind: "stopped", stop, own: refusal };
  return refusal ? { kind: "refused", own: refusal } : { kind: "runs" };
}
