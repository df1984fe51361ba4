import type { BaseMessage } from "@langchain/core/messages";
import type { CallDecision, ExitBehavior } from "../core/decision.js";
import type { ToolCallView } from "../core/messages.js";
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
  private decideBatch!: BatchGuardSettings["decide"];

  /**
   * The guard's decision for a batch of pending calls, given the history that precedes them
   * (ending with the AIMessage that asked for them). The live hook and replay both call this.
   */
  readonly evaluate = async (
    messages: readonly BaseMessage[],
    pending: readonly ToolCallView[],
  ): Promise<CallDecision[]> => this.decideBatch(messages, pending);

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
    this.decideBatch = decide;
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
