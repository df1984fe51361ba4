import type { BaseMessage } from "@langchain/core/messages";
import { guardToolMessage, notRunText, stopNotice } from "../core/answers.js";
import type { CallDecision } from "../core/decision.js";
import { GuardStopError } from "../core/errors.js";
import { pendingToolCalls, type ToolCallView } from "../core/messages.js";
import { emitSignal, type SignalHandler } from "../core/signals.js";

/** What a guard does once its ladder reaches a stop. */
export type ExitBehavior = "directive" | "end" | "throw";

export interface BatchGuardSettings {
  guard: string;
  exitBehavior: ExitBehavior;
  observeOnly: boolean;
  onSignal?: SignalHandler;
  /** Decisions for the batch; synchronous when it can be, since the hook runs on every step. */
  decide: (messages: readonly BaseMessage[], pending: readonly ToolCallView[]) => CallDecision[] | Promise<CallDecision[]>;
}

interface HookResult {
  messages?: BaseMessage[];
  jumpTo?: "end" | "model";
}

/**
 * The `afterModel` hook shared by the loop guards: decides on the whole batch of pending calls
 * before any of them runs, so parallel duplicates are seen together. Blocked calls are answered
 * here (the tools node then runs only the rest); a stop answers every pending call and adds a
 * final AIMessage. When every call is answered, it jumps back to the model, because createAgent
 * would otherwise end the run on a batch with nothing left to execute.
 * A batch that every guard allows (nearly every step) costs no promise at all.
 */
export function batchGuardHook(settings: BatchGuardSettings) {
  return (state: { messages: BaseMessage[] }): HookResult | undefined | Promise<HookResult | undefined> => {
    const pending = pendingToolCalls(state.messages);
    if (pending.length === 0) return undefined;
    let decisions: CallDecision[] | Promise<CallDecision[]>;
    try {
      decisions = settings.decide(state.messages, pending);
    } catch (error) {
      return guardFailed(settings, error);
    }
    if (decisions instanceof Promise) {
      return decisions.then(
        (decided) => act(settings, pending, decided),
        (error: unknown) => guardFailed(settings, error),
      );
    }
    return decisions.every(({ decision }) => decision.action === "allow") ? undefined : act(settings, pending, decisions);
  };
}

/** A guard bug must not take the agent down: let the batch run and say why. */
async function guardFailed(settings: BatchGuardSettings, error: unknown): Promise<undefined> {
  await emitSignal({ guard: settings.guard, action: "warn", reason: "guard_failed", detail: { error: String(error) } }, settings.onSignal);
  return undefined;
}

async function act(settings: BatchGuardSettings, pending: readonly ToolCallView[], decisions: readonly CallDecision[]): Promise<HookResult | undefined> {
  for (const { call, decision } of decisions) {
    if (decision.action === "allow") continue;
    await emitSignal(
      {
        guard: settings.guard,
        action: decision.action,
        toolCallId: call.id,
        tool: call.name,
        reason: decision.reason,
        detail: settings.observeOnly ? { ...decision.detail, observeOnly: true } : decision.detail,
      },
      settings.onSignal,
    );
  }
  if (settings.observeOnly) return undefined;

  const stop = decisions.find(({ decision }) => decision.action === "stop");
  if (stop && stop.decision.action === "stop" && settings.exitBehavior !== "directive") {
    if (settings.exitBehavior === "throw") {
      throw new GuardStopError(settings.guard, stop.decision.reason, stop.call.name, stop.call.id);
    }
    const answers = pending.map((call) => {
      const own = decisions.find((d) => d.call.id === call.id)?.decision;
      const text = own && (own.action === "stop" || own.action === "directive") ? own.message : notRunText(settings.guard);
      return guardToolMessage(call, settings.guard, "stop", text);
    });
    return { messages: [...answers, stopNotice(settings.guard, stop.decision.reason)], jumpTo: "end" };
  }

  const blocked: BaseMessage[] = [];
  for (const { call, decision } of decisions) {
    if (decision.action === "directive" || decision.action === "stop") {
      blocked.push(guardToolMessage(call, settings.guard, "directive", decision.message));
    }
  }
  if (blocked.length === 0) return undefined;
  return blocked.length === pending.length ? { messages: blocked, jumpTo: "model" } : { messages: blocked };
}
