import { ALLOW, type CallDecision } from "../../core/decision.js";
import { messageKind, type ToolCallView } from "../../core/messages.js";
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
 */
export function decideReviewedCalls(
  messages: readonly unknown[],
  pending: readonly ToolCallView[],
  options: ReviewedCallsOptions,
): CallDecision[] {
  let current = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messageKind(messages[i]) === "ai") {
      current = i;
      break;
    }
  }
  const reviews = new Map(reviewsOf(messages[current]).map((review) => [review.id, review]));
  if (reviews.size === 0) return pending.map((call) => ({ call, decision: ALLOW }));

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
