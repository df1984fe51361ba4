import type { ExitBehavior } from "../core/decision.js";
import type { SignalHandler } from "../core/signals.js";
import { batchGuard, type BatchGuardHooks, type BatchGuardSettings } from "./batchGuard.js";
import { carryStateSchema } from "./carry.js";
import { MiddlewareBase } from "./middlewareBase.js";

/** The options every batch guard takes besides its own, as its schema (core/baseOptions.ts) parsed them. */
export interface BatchGuardOptions {
  exitBehavior?: ExitBehavior;
  observeOnly?: boolean;
  onSignal?: SignalHandler | undefined;
}

/**
 * A middleware whose judgement is a batch guard (batchGuard.ts): it declares the carried-history
 * channel and attaches through the two wrap hooks `batchGuard` builds from its decision.
 */
export abstract class BatchGuardMiddleware extends MiddlewareBase {
  /** The carried-history channel (carry.ts); `recommendedGuards` keeps one declaration per stack. */
  stateSchema?: typeof carryStateSchema = carryStateSchema;
  wrapToolCall!: BatchGuardHooks["wrapToolCall"];
  wrapModelCall!: BatchGuardHooks["wrapModelCall"];

  /**
   * Builds the wrap hooks and attaches them; called by the subclass's constructor once `decide`
   * can run. Returns them for a subclass that wraps them in hooks of its own. `defaultExit` is
   * for a guard without the `exitBehavior` option.
   */
  protected attach(
    options: BatchGuardOptions,
    defaultExit: ExitBehavior,
    decide: BatchGuardSettings["decide"],
  ): BatchGuardHooks {
    const hooks = batchGuard({
      guard: this.name,
      exitBehavior: options.exitBehavior ?? defaultExit,
      observeOnly: options.observeOnly ?? false,
      onSignal: options.onSignal,
      decide,
    });
    ({ wrapToolCall: this.wrapToolCall, wrapModelCall: this.wrapModelCall } = hooks);
    return hooks;
  }
}
