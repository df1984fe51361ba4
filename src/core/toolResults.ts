import { ToolMessage } from "@langchain/core/messages";
import { Command, isCommand } from "@langchain/langgraph";
import type { ToolCallResult } from "./toolErrors.js";

export type { ToolCallResult };

/** A replacement for one ToolMessage, with graph state to write alongside it. */
export interface ToolMessageRewrite {
  message: ToolMessage;
  stateUpdate?: Record<string, unknown>;
}

/** A rewrite of one ToolMessage: synchronous when it can tell at once that nothing changes. */
export type RewriteToolMessage = (
  message: ToolMessage,
) => ToolMessageRewrite | undefined | Promise<ToolMessageRewrite | undefined>;

/** The answer that replaces one ToolMessage: the new message, in a Command when it writes state too. */
export function withRewrite(done: ToolMessageRewrite): ToolCallResult {
  return done.stateUpdate ? new Command({ update: { ...done.stateUpdate, messages: [done.message] } }) : done.message;
}

/**
 * Applies `rewrite` to the ToolMessages in a Command's `update.messages` (deepagents' tools
 * answer with Commands that also update state). Everything else in the Command (other messages,
 * state keys, goto) is kept; with nothing rewritten the same object comes back.
 */
export async function rewriteCommandMessages(
  result: ToolCallResult,
  rewrite: RewriteToolMessage,
): Promise<ToolCallResult> {
  if (!isCommand(result)) return result;
  const command = result as Command;
  const update = command.update;
  if (update === undefined || update === null) return result;
  const entries: [string, unknown][] = Array.isArray(update) ? update.map(([k, v]) => [k, v]) : Object.entries(update);

  let changed = false;
  const extra: Record<string, unknown>[] = [];
  const rewritten: [string, unknown][] = [];
  for (const [key, value] of entries) {
    if (key !== "messages") {
      rewritten.push([key, value]);
      continue;
    }
    const list = Array.isArray(value) ? value : [value];
    const out: unknown[] = [];
    for (const message of list) {
      const done = ToolMessage.isInstance(message) ? await rewrite(message) : undefined;
      if (!done) {
        out.push(message);
        continue;
      }
      changed = true;
      out.push(done.message);
      if (done.stateUpdate) extra.push(done.stateUpdate);
    }
    rewritten.push([key, Array.isArray(value) ? out : out[0]]);
  }
  if (!changed) return result;
  const merged: Record<string, unknown> = Object.fromEntries(rewritten);
  for (const update of extra) {
    for (const [key, value] of Object.entries(update)) merged[key] = mergeValue(merged[key], value);
  }
  return new Command({ graph: command.graph, goto: command.goto, resume: command.resume, update: merged });
}

/** Two object updates of one key (deepagents' `files`) are merged; anything else is replaced. */
export function mergeValue(existing: unknown, added: unknown): unknown {
  if (isPlainObject(existing) && isPlainObject(added)) return { ...existing, ...added };
  return added;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
