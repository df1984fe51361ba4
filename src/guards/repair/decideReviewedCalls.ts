import { ALLOW, type CallDecision } from "../../core/decision.js";
import { lastAiIndex, messageKind, type ToolCallView } from "../../core/messages.js";
import { reviewsOf, type CallReview } from "./reviewTurn.js";
import { unusableCallsStopReason } from "./texts.js";

export interface ReviewedCallsOptions {
  /** Unusable calls (unknown tool or unusable arguments) since the last user message at which the run stops. */
  stopAt: number;
}

/**
 * Decisions for the pending calls of the last AI message, from the reviews kept on it: a repaired
 * call runs (with a warn signal), a rejected or phantom call gets its explanation instead of
 * running, and once the unusable calls since the last user message reach `stopAt` the run stops.
 * The count comes from the reviews in the history, so it survives restarts and replays.
 * Made once per guard: the batch guard calls it as it is, with no closure around it.
 */
export function reviewedCallsDecider(
  options: ReviewedCallsOptions,
): (messages: readonly unknown[], pending: readonly ToolCallView[]) => CallDecision[] {
  return (messages, pending) => {
    const current = lastAiIndex(messages);
    const kept = reviewsOf(messages[current]);
    // A turn the review left as it was (nearly every turn): every call runs.
    if (kept.length === 0) {
      const allowed: CallDecision[] = [];
      for (const call of pending) allowed.push({ call, decision: ALLOW });
      return allowed;
    }
    const reviews = new Map(kept.map((review) => [review.id, review]));
    let unusable = unusableSinceUserTurn(messages, current);
    return pending.map((call): CallDecision => {
      const review = reviews.get(call.id);
      if (!review) return { call, decision: ALLOW };
      if (review.verdict === "repaired") {
        return {
          call,
          decision: {
            action: "warn",
            code: "repaired_arguments",
            reason: "repaired_arguments",
            detail: { repairs: review.repairs },
          },
        };
      }
      unusable += 1;
      const reason = review.verdict === "unknown_tool" ? "unknown_tool" : "unusable_arguments";
      const code = reason;
      const detail =
        review.verdict === "unknown_tool"
          ? { closest: review.closest, count: unusable }
          : { problem: review.problem, count: unusable };
      if (unusable >= options.stopAt) {
        return {
          call,
          decision: {
            action: "stop",
            code,
            reason: unusableCallsStopReason(unusable),
            message: review.text,
            detail: { ...detail, kind: reason },
          },
        };
      }
      return { call, decision: { action: "directive", code, reason, message: review.text, detail } };
    });
  };
}

function isUnusable(review: CallReview): boolean {
  return review.verdict !== "repaired";
}

function unusableSinceUserTurn(messages: readonly unknown[], before: number): number {
  let count = 0;
  for (let i = before - 1; i >= 0; i--) {
    const message = messages[i];
    const kind = messageKind(message);
    if (kind === "human") break;
    if (kind === "ai") count += reviewsOf(message).filter(isUnusable).length;
  }
  return count;
}
