import { ToolMessage } from "@langchain/core/messages";
import { isGraphBubbleUp } from "@langchain/langgraph";
import type { Command } from "@langchain/langgraph";
import { GuardStopError } from "./errors.js";
import { probedRequest, stampRan } from "./ranStamps.js";

/** What a tool call comes back as: its ToolMessage, or a Command that also updates state (deepagents' tools). */
export type ToolCallResult = ToolMessage | Command;

/** The next handler of a `wrapToolCall` chain. */
export type ToolHandler<R> = (request: R) => ToolCallResult | Promise<ToolCallResult>;

interface CallLike {
  toolCall: { id?: string; name: string };
  tool?: unknown;
}

/**
 * Runs the next handler of a `wrapToolCall` chain and turns a tool's exception into the error
 * ToolMessage LangChain would have produced had no middleware wrapped the call. Without this,
 * merely adding a `wrapToolCall` middleware makes every tool exception end the run
 * (docs/langchain-facts.md). Interrupts, other graph signals and a guard's `"throw"` stop still propagate.
 * The answer carries the stamp of a tool that ran (ranStamps.ts), a failure that ran included.
 */
export async function runToolSafely<R extends CallLike>(request: R, handler: ToolHandler<R>): Promise<ToolCallResult> {
  const { request: probed, probe } = probedRequest(request);
  let result: ToolCallResult;
  try {
    result = await handler(probed);
  } catch (error) {
    if (isGraphBubbleUp(error) || GuardStopError.in(error)) throw error;
    result = defaultToolErrorMessage(error, request.toolCall);
  }
  return stampRan(result, probe, request.toolCall.id);
}

/** LangChain's ToolInvocationError, recognised by its brand as LangChain itself does (core does not import langchain). */
function isToolInvocationError(error: unknown): error is Error {
  return error instanceof Error && (error as { "~brand"?: unknown })["~brand"] === "ToolInvocationError";
}

/** The error ToolMessage LangChain's ToolNode writes for a tool's exception. */
export function defaultToolErrorMessage(error: unknown, toolCall: CallLike["toolCall"]): ToolMessage {
  return new ToolMessage({
    // ToolNode writes a tool's own failure (arguments its schema refused included) by its message alone.
    content: isToolInvocationError(error) ? error.message : `${String(error)}\n Please fix your mistakes.`,
    tool_call_id: toolCall.id ?? "",
    name: toolCall.name,
    status: "error",
  });
}
