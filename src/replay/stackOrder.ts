import type { CallDecision } from "../core/decision.js";
import { batchStop, refuses, type GuardMode } from "../core/verdict.js";
import type { JudgedBatch, StackedGuard } from "./replayThread.js";

/** A recorded answer that proves one guard was outside another in the live stack. */
export interface OrderEvidence {
  /** The guard whose mark is on the call's answer... */
  outer: string;
  /** ...although this one would have answered the call too, had the call reached it. */
  inner: string;
  toolCallId: string;
}

/**
 * The order the live stack had, as far as the thread tells it: wrap hooks nest first middleware
 * outermost, so the guard that answered a call live was outside every guard of the stack that
 * would have answered it too (refused it, or stopped its batch). The given order holds wherever
 * the thread proves nothing, which it cannot for guards that only warned. When the recorded
 * answers contradict each other, the given order wins and the replay reports the answers it
 * does not reproduce. `evidence` holds what moved a guard.
 */
export function liveOrder(
  batches: readonly JudgedBatch[],
  stack: readonly StackedGuard[],
): { order: StackedGuard[]; evidence: OrderEvidence[] } {
  const proven = provenPairs(batches, stack);
  const order = stableOrder(stack, proven);
  const at = (orderOf: readonly StackedGuard[], name: string) => orderOf.findIndex(({ guard }) => guard.name === name);
  const evidence = proven.filter(
    ({ outer, inner }) => at(stack, outer) > at(stack, inner) && at(order, outer) < at(order, inner),
  );
  return { order, evidence };
}

/** Every pair the recorded answers prove (outer before inner), with the first call that proves it. */
function provenPairs(batches: readonly JudgedBatch[], stack: readonly StackedGuard[]): OrderEvidence[] {
  const pairs = new Map<string, OrderEvidence>();
  const inStack = new Set(stack.map(({ guard }) => guard.name));
  for (const batch of batches) {
    for (const [toolCallId, outer] of batch.answeredLive) {
      if (!inStack.has(outer)) continue;
      for (const { guard, ...mode } of stack) {
        const key = `${outer}\u0000${guard.name}`;
        if (guard.name === outer || pairs.has(key) || !wouldAnswer(batch.judgements.get(guard.name)!, toolCallId, mode))
          continue;
        pairs.set(key, { outer, inner: guard.name, toolCallId });
      }
    }
  }
  return [...pairs.values()];
}

/** Whether a guard would have answered the call, had it reached it: it refuses the call, or stops the batch. */
function wouldAnswer(decisions: readonly CallDecision[], toolCallId: string, mode: GuardMode): boolean {
  return (
    batchStop(decisions, mode) !== undefined ||
    decisions.some(({ call, decision }) => call.id === toolCallId && refuses(decision, mode.observeOnly))
  );
}

/**
 * The stack with every proven pair in order and otherwise as given: each place goes to the first
 * guard (in the given order) that no unplaced guard must precede; on a contradiction, to the first.
 */
function stableOrder(stack: readonly StackedGuard[], pairs: readonly OrderEvidence[]): StackedGuard[] {
  const remaining = [...stack];
  const order: StackedGuard[] = [];
  while (remaining.length > 0) {
    const free = remaining.findIndex(
      ({ guard }) =>
        !pairs.some(({ outer, inner }) => inner === guard.name && remaining.some((g) => g.guard.name === outer)),
    );
    order.push(...remaining.splice(Math.max(0, free), 1));
  }
  return order;
}
