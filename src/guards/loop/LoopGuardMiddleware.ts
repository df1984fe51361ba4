import type { BaseMessage } from "@langchain/core/messages";
import { InvalidOptionsError } from "../../core/errors.js";
import type { CallDecision, ExitBehavior } from "../../core/decision.js";
import type { ToolCallView } from "../../core/messages.js";
import type { SignalHandler } from "../../core/signals.js";
import { decideIdenticalCalls, LOOP_GUARD, type IdenticalCallsOptions } from "./identicalCalls.js";
import { DEFAULT_OBSERVATION_OPTIONS, withObservations, type Observed } from "../../observe/shared.js";
import { argsKeyOf } from "../../observe/argsIdentity.js";
import { positiveInteger } from "../../hooks/middlewareBase.js";
import { BatchGuardMiddleware } from "../../hooks/batchGuardMiddleware.js";

export interface LoopGuardOptions {
  /** Identical calls since the last new result (this one included) at which a `warn` signal is emitted. Default 3. */
  warnAt?: number;
  /** Identical calls (this one included) at which `exitBehavior` applies. Default 7: real agents scroll or page up to 6 times in a row legitimately. */
  stopAt?: number;
  /** Count identical calls among the last `window` calls instead of consecutive ones. Default: consecutive. */
  window?: number;
  /** No-op tools that neither count nor break a streak. Default `["think"]`. */
  ignoreTools?: readonly string[];
  /** At `stopAt`: refuse the call with a directive, end the run cleanly, or throw `GuardStopError`. Default `"end"`. */
  exitBehavior?: ExitBehavior;
  /** Emit signals only; never block or stop. Default false. */
  observeOnly?: boolean;
  /** Receives every decision other than allow. */
  onSignal?: SignalHandler;
}

export const LOOP_GUARD_DEFAULTS = { warnAt: 3, stopAt: 7, ignoreTools: ["think"], exitBehavior: "end" } as const;

/** A result with more new content than this (novelty.ts) is progress: the same as ProgressAwareLoopGuard's default. */
const PROGRESS_FLOOR = 0.02;

/**
 * Stops an agent that calls the same tool with the same arguments again and again while nothing
 * new comes back. Counts consecutive identical calls (name + normalised arguments: key order,
 * casing, whitespace and code comments aside), including duplicates inside one parallel batch,
 * since the call's result last brought something new: a job polled while its progress moves, or
 * a log tailed while it grows, is never counted. A new user message starts the count over.
 *
 * Ladder: `warn` signal at `warnAt`; at `stopAt`, `exitBehavior` (default: answer every pending
 * call and end the run with a final message stating why).
 *
 * @example
 * const agent = createAgent({ model, tools, middleware: [new LoopGuardMiddleware({ stopAt: 4 })] });
 */
export class LoopGuardMiddleware extends BatchGuardMiddleware {
  readonly name = LOOP_GUARD;
  private readonly settings: IdenticalCallsOptions;

  constructor(options: LoopGuardOptions = {}) {
    super();
    const warnAt = positiveInteger(this.name, "warnAt", options.warnAt, LOOP_GUARD_DEFAULTS.warnAt);
    const stopAt = positiveInteger(this.name, "stopAt", options.stopAt, LOOP_GUARD_DEFAULTS.stopAt);
    if (warnAt > stopAt) throw new InvalidOptionsError(this.name, "warnAt", `(${warnAt}) must not exceed stopAt (${stopAt})`);
    this.settings = {
      warnAt,
      stopAt,
      window: options.window === undefined ? undefined : positiveInteger(this.name, "window", options.window, 1),
      ignoreTools: new Set(options.ignoreTools ?? LOOP_GUARD_DEFAULTS.ignoreTools),
      progressFloor: PROGRESS_FLOOR,
    };
    this.attach(options, LOOP_GUARD_DEFAULTS.exitBehavior, this.decideNow);
  }

  /**
   * The guard's decision for a batch of pending calls, given the history that precedes them.
   * The live hook and `harness-kit eval` both call this, so replay reproduces live decisions.
   */
  readonly evaluate = async (messages: readonly BaseMessage[], pending: readonly ToolCallView[]): Promise<CallDecision[]> => this.decideNow(messages, pending);

  /** `evaluate` without a promise once the hasher is loaded: the hook runs on every step. */
  private readonly decideNow = (messages: readonly BaseMessage[], pending: readonly ToolCallView[]): CallDecision[] | Promise<CallDecision[]> =>
    withObservations(messages, DEFAULT_OBSERVATION_OPTIONS, (observed) => this.decideWith(observed, pending));

  private decideWith({ store, hash }: Observed, pending: readonly ToolCallView[]): CallDecision[] {
    const batch = pending.map((call) => ({
      call,
      key: store.pendingKeys(call.id)?.argsKey ?? argsKeyOf(call.name, call.args, hash),
    }));
    return decideIdenticalCalls(store.observations, store.userTurn, batch, this.settings);
  }
}
