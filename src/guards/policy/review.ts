import type { HumanDecisionKind } from "./rules.js";

/**
 * The review of an asked call, in the shapes of LangChain's humanInTheLoopMiddleware
 * (`HITLRequest` / `HITLResponse`), so one review UI answers both.
 */

/** What the interrupt carries: LangChain's `HITLRequest`, one action per asked call. */
export interface PolicyReviewRequest {
  actionRequests: Array<{ name: string; args: Record<string, unknown>; description: string }>;
  reviewConfigs: Array<{ actionName: string; allowedDecisions: HumanDecisionKind[] }>;
}

/** What the guard reads on resume: LangChain's `HITLResponse` with one decision. */
export type PolicyReviewDecision =
  | { type: "approve" }
  | { type: "edit"; editedAction: { name: string; args: Record<string, unknown> } }
  | { type: "reject"; message?: string };

/** The reviewer's one decision, if it is one this call allows; undefined for anything else. */
export function readReview(response: unknown, allowed: readonly HumanDecisionKind[]): PolicyReviewDecision | undefined {
  const decisions = (response as { decisions?: unknown } | null | undefined)?.decisions;
  const decision = Array.isArray(decisions) && decisions.length === 1 ? (decisions[0] as Record<string, unknown> | null) : undefined;
  if (!decision || typeof decision !== "object" || !allowed.includes(decision.type as HumanDecisionKind)) return undefined;
  if (decision.type === "approve") return { type: "approve" };
  if (decision.type === "reject") return { type: "reject", message: typeof decision.message === "string" ? decision.message : undefined };
  const action = decision.editedAction as { name?: unknown; args?: unknown } | undefined;
  if (!action || typeof action.name !== "string" || action.name === "" || action.args === null || typeof action.args !== "object" || Array.isArray(action.args)) return undefined;
  return { type: "edit", editedAction: { name: action.name, args: action.args as Record<string, unknown> } };
}
