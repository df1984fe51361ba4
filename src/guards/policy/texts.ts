/**
 * Text the policy guard writes. The model reads `deniedText` and `rejectedText` in place of a
 * tool's result; the reviewer reads `askDescription` in the interrupt.
 */

export interface RuleReason {
  id: string;
  reason: string;
}

/** Read by the model: one line naming every rule that denied the call and why, and what to do instead. */
export function deniedText(rules: readonly RuleReason[]): string {
  const named = rules.map(({ id, reason }) => `rule "${id}": ${stripEnd(reason)}`).join("; ");
  return `Denied by policy ${named}. This call did not run; do not retry it, tell the user it is not allowed or do the task another way.`;
}

/** Read by the model: the policy failed to evaluate, so the call was denied (it fails closed). */
export function policyFailedText(): string {
  return deniedText([{ id: "policy", reason: "the policy could not be evaluated" }]);
}

/** Read by the model: a reviewer said no. */
export function rejectedText(toolName: string, message: string | undefined): string {
  return message !== undefined && message.trim() !== ""
    ? `A reviewer rejected this ${toolName} call: ${oneLine(message)}`
    : `A reviewer rejected this ${toolName} call; it did not run. Do not retry it unchanged.`;
}

/** Read by the model: the reviewer's answer could not be read, so the call was not run. */
export function unreadableReviewText(toolName: string): string {
  return `This ${toolName} call needed a reviewer's approval and the answer could not be read; it did not run.`;
}

/** Read by the reviewer: why the call waits for them, the same shape as humanInTheLoopMiddleware's description. */
export function askDescription(rules: readonly RuleReason[], toolName: string, args: unknown): string {
  const why = rules.map(({ id, reason }) => `rule "${id}": ${stripEnd(reason)}`).join("; ");
  let shownArgs: string;
  try {
    shownArgs = JSON.stringify(args, null, 2) ?? "undefined";
  } catch {
    shownArgs = String(args);
  }
  return `Policy requires approval (${why})\n\nTool: ${toolName}\nArgs: ${shownArgs}`;
}

/** Read by the model and the reviewer, through `{found}` in a rule's reason: what a count condition counted. */
export function earlierCallsText(count: number): string {
  return `${count} earlier calls`;
}

/** Read by the model and the reviewer: a rule's `{found}`, the values its conditions caught. */
export function foundText(found: readonly string[]): string {
  return found.length > 0 ? [...new Set(found)].join(", ") : "(nothing)";
}

/** Read by the model and the reviewer: an `{args.<path>}` or `{context.<path>}` placeholder with no value there. */
export function absentValueText(): string {
  return "(none)";
}

/** Reason used when no rule matched and the policy's default denies or asks. */
export function defaultReasonText(toolName: string, decision: "deny" | "ask"): string {
  return decision === "deny" ? `no rule allows ${toolName}` : `no rule covers ${toolName}`;
}

function stripEnd(text: string): string {
  return text.replace(/[.\s]+$/, "");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
