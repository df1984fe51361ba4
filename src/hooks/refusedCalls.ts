import type { BaseMessage } from "@langchain/core/messages";
import { answerIdsAfter } from "../core/messages.js";

/**
 * The calls of each model turn that a guard refused, by the AIMessage that asked for them
 * (docs/architecture.md, "Judge as one"). Every call meets the guards outermost first, and a
 * guard that refuses decides the whole turn at the first call that reaches it (the batch guards,
 * and the policy guard's denials), so a guard finds here every refusal made outside it when it
 * decides the turn: those calls never reach it, and its stop cannot ride on them.
 */
const refused = new WeakMap<object, Set<string>>();

/** The ids of the calls of `asking` that a guard refused so far; add to it to record a refusal. */
export function refusedCallsOf(asking: object): Set<string> {
  let ids = refused.get(asking);
  if (!ids) refused.set(asking, (ids = new Set()));
  return ids;
}

/**
 * The calls of a model turn (`messages[at]`) that never reach the guard deciding it: those
 * answered before the tools node, and those a guard outside it refused. Such a call did not run:
 * no stop rides on it, and it is no earlier call of the batch for any other guard.
 */
export function answeredOutside(asking: object, messages: readonly BaseMessage[], at: number): Set<string> {
  const ids = refusedCallsOf(asking);
  // A call limit's block or a reviewer's reject is in the state the tools node runs with.
  if (at < messages.length - 1) for (const id of answerIdsAfter(messages, at)) ids.add(id);
  return ids;
}
