import { fields } from "./fields.js";

/**
 * Read-only views over messages that work for LangChain message instances and for plain
 * message dicts (`{type: "ai", tool_calls}` or `{role: "assistant"}`), so the same pure code
 * serves live graphs and saved threads.
 */

export type MessageKind = "ai" | "tool" | "human" | "system" | "other";

export interface ToolCallView {
  id: string;
  name: string;
  args: unknown;
}

const ROLE_KINDS: Record<string, MessageKind> = {
  ai: "ai",
  assistant: "ai",
  AIMessageChunk: "ai",
  tool: "tool",
  human: "human",
  user: "human",
  generic: "other",
  system: "system",
  developer: "system",
};

export function messageKind(message: unknown): MessageKind {
  const m = fields(message);
  const tag = typeof m.type === "string" ? m.type : typeof m.role === "string" ? m.role : undefined;
  return (tag ? ROLE_KINDS[tag] : undefined) ?? "other";
}

/** Where the last AI message of `messages` is, or -1. */
export function lastAiIndex(messages: readonly unknown[]): number {
  let at = messages.length - 1;
  while (at >= 0 && messageKind(messages[at]) !== "ai") at--;
  return at;
}

/** Where the model turn that `messages` end with is, past its answers; -1 when they end otherwise (a run's start). */
export function latestTurnIndex(messages: readonly unknown[]): number {
  let at = messages.length - 1;
  while (at >= 0 && messageKind(messages[at]) === "tool") at--;
  return at >= 0 && messageKind(messages[at]) === "ai" ? at : -1;
}

/**
 * Tool calls of an AI message; entries without a usable id or name are skipped. Read on every
 * step by every guard: when every entry is usable (as in any message LangChain made), they are
 * the message's own array and calls, not copies.
 */
export function toolCallsOf(message: unknown): readonly ToolCallView[] {
  const calls = fields(message).tool_calls;
  if (!Array.isArray(calls)) return NO_CALLS;
  let out: ToolCallView[] | undefined;
  for (let i = 0; i < calls.length; i++) {
    const c = fields(calls[i]);
    const usable = typeof c.id === "string" && c.id !== "" && typeof c.name === "string";
    if (usable && out === undefined) continue;
    out ??= (calls as ToolCallView[]).slice(0, i);
    if (usable) out.push({ id: c.id as string, name: c.name as string, args: c.args });
  }
  return out ?? (calls as ToolCallView[]);
}

const NO_CALLS: readonly ToolCallView[] = Object.freeze([]);

export function toolCallIdOf(message: unknown): string | undefined {
  const id = fields(message).tool_call_id;
  return typeof id === "string" ? id : undefined;
}

export function contentOf(message: unknown): unknown {
  return fields(message).content;
}

/** The text of a content block: a string block, or a `{type: "text", text}` block; `undefined` for any other. */
export function textOfBlock(block: unknown): string | undefined {
  if (typeof block === "string") return block;
  const b = fields(block);
  return b.type === "text" && typeof b.text === "string" ? b.text : undefined;
}

export function statusOf(message: unknown): "success" | "error" | undefined {
  const status = fields(message).status;
  return status === "error" || status === "success" ? status : undefined;
}

export function nameOf(message: unknown): string | undefined {
  const name = fields(message).name;
  return typeof name === "string" ? name : undefined;
}

/** Calls of the last AI message that no ToolMessage after it answers yet. */
export function pendingToolCalls(messages: readonly unknown[]): readonly ToolCallView[] {
  const at = lastAiIndex(messages);
  if (at < 0) return [];
  const calls = toolCallsOf(messages[at]);
  if (at === messages.length - 1) return calls; // right after the model call: nothing answered yet
  const answered = new Set(answerIdsAfter(messages, at));
  return calls.filter((call) => !answered.has(call.id));
}

/** The tool-call ids the messages after `messages[at]` answer, in order. */
export function answerIdsAfter(messages: readonly unknown[], at: number): string[] {
  const ids: string[] = [];
  for (let i = at + 1; i < messages.length; i++) {
    const id = toolCallIdOf(messages[i]);
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

/** Whether a message is the summary LangChain's summarizationMiddleware wrote: it is not the user speaking. */
export function isSummary(message: unknown): boolean {
  return fields(fields(message).additional_kwargs).lc_source === "summarization";
}
