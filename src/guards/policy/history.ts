import { fields } from "../../core/fields.js";
import { isStampedTurn, toolRan } from "../../core/marks.js";
import { isSummary, messageKind, statusOf, toolCallIdOf, toolCallsOf } from "../../core/messages.js";

/** Where a reviewer's edit is recorded on the result of the call it changed, so history shows what ran. */
export const POLICY_METADATA_KEY = "harness_kit_policy";

/** An earlier call of the thread as flow conditions see it. */
export interface PastCall {
  name: string;
  args: unknown;
  /** The tool ran and its result is in the thread (nothing answered in its place: core/marks.ts toolRan). */
  ran: boolean;
  status: "success" | "error" | undefined;
  /** Made after the last user message. */
  inRun: boolean;
}

/**
 * Every call of `messages` with how it ended, oldest first. A ToolMessage answers the latest
 * call with its id before it (models that reuse ids reuse them across turns). A call a reviewer
 * edited counts as the call that ran (its name and arguments from the result's policy metadata).
 */
export function pastCalls(messages: readonly unknown[]): PastCall[] {
  const calls: PastCall[] = [];
  const madeAt: number[] = [];
  const open = new Map<string, { past: PastCall; stampedTurn: boolean }>();
  let runStart = -1;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    const kind = messageKind(message);
    if (kind === "ai") {
      const stampedTurn = isStampedTurn(message);
      for (const call of toolCallsOf(message)) {
        const past: PastCall = { name: call.name, args: call.args, ran: false, status: undefined, inRun: false };
        calls.push(past);
        madeAt.push(i);
        open.set(call.id, { past, stampedTurn });
      }
    } else if (kind === "tool") {
      const id = toolCallIdOf(message);
      const asked = id === undefined ? undefined : open.get(id);
      if (!asked) continue;
      open.delete(id!);
      const { past } = asked;
      past.ran = toolRan(message, asked.stampedTurn);
      past.status = statusOf(message) ?? "success";
      const edit = fields(fields(fields(fields(message).response_metadata)[POLICY_METADATA_KEY]).edited);
      if (typeof edit.name === "string") {
        past.name = edit.name;
        past.args = edit.args;
      }
    } else if (kind === "human" && !isSummary(message)) runStart = i;
  }
  for (let k = 0; k < calls.length; k++) calls[k]!.inRun = madeAt[k]! > runStart;
  return calls;
}
