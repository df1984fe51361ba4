/**
 * The calls of each model turn that a guard refused, by the AIMessage that asked for them
 * (docs/architecture.md, "Judge as one"). Every call meets the guards outermost first, and a
 * guard that refuses decides the whole turn at the first call that reaches it (the batch guards,
 * and the policy guard's denials), so a batch guard finds here every refusal made outside it
 * when it decides the turn: those calls never reach it, and its stop cannot ride on them.
 */
const refused = new WeakMap<object, Set<string>>();

/** The ids of the calls of `asking` that a guard refused so far; add to it to record a refusal. */
export function refusedCallsOf(asking: object): Set<string> {
  let ids = refused.get(asking);
  if (!ids) refused.set(asking, (ids = new Set()));
  return ids;
}
