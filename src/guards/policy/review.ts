import type { HumanDecisionKind } from "./rules.js";

/**
 * Reading a reviewer's answer to an asked call. The middleware asks with LangChain's own
 * `HITLRequest` and reads its `HITLResponse` (humanInTheLoopMiddleware's shapes), so one review
 * UI answers both; this is the pure part, kept free of LangChain imports.
 */

/** The one decision of a `HITLResponse` the guard acts on (LangChain's `Decision`, checked). */
export type PolicyReviewDecision =
  | { type: "approve" }
  | { type: "edit"; editedAction: { name: string; args: Record<string, unknown> } }
  | { type: "reject"; message?: string };

/** The reviewer's one decision, if it is one this call allows; undefined for anything else. */
export function readReview(response: unknown, allowed: readonly HumanDecisionKind[]): PolicyReviewDecision | undefined {
  const decisions = (response as { decisions?: unknown } | null | undefined)?.decisions;
  const decision =
    Array.isArray(decisions) && decisions.length === 1 ? (decisions[0] as Record<string, unknown> | null) : undefined;
  if (!decision || typeof decision !== "object" || !allowed.includes(decision.type as HumanDecisionKind))
    return undefined;
  if (decision.type === "approve") return { type: "approve" };
  if (decision.type === "reject")
    return { type: "reject", message: typeof decision.message === "string" ? decision.message : undefined };
  const action = decision.editedAction as { name?: unknown; args?: unknown } | undefined;
  if (
    !action ||
    typeof action.name !== "string" ||
    action.name === "" ||
    action.args === null ||
    typeof action.args !== "object" ||
    Array.isArray(action.args)
  )
    return undefined;
  return { type: "edit", editedAction: { name: action.name, args: action.args as Record<string, unknown> } };
}
