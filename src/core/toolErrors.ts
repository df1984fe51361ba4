import { ToolMessage } from "@langchain/core/messages";
import { isGraphBubbleUp } from "@langchain/langgraph";
import type { Command } from "@langchain/langgraph";
import { toolErrorOutsideText, warnOnce } from "./composition.js";
import { GuardStopError } from "./errors.js";
import { promisedCall } from "./maybePromise.js";
import { probedRequest, stampRan, type RunProbe } from "./ranStamps.js";

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
 * (docs/langchain-facts.md). Interrupts, other graph signals, a guard's `"throw"` stop, and what a
 * middleware listed after the guards let through (`leftToOthers`) still propagate.
 * The answer carries the stamp of a tool that ran (ranStamps.ts), a failure that ran included.
 */
export function runToolSafely<R extends CallLike>(request: R, handler: ToolHandler<R>): Promise<ToolCallResult>;
/** `then` applied to the answer in the same promise step: a result guard's own step costs no promise of its own. */
export function runToolSafely<R extends CallLike, T>(
  request: R,
  handler: ToolHandler<R>,
  then: (answer: ToolCallResult) => T | PromiseLike<T>,
): Promise<T>;
export function runToolSafely<R extends CallLike>(
  request: R,
  handler: ToolHandler<R>,
  then?: (answer: ToolCallResult) => unknown,
): Promise<unknown> {
  const { request: probed, probe } = probedRequest(request);
  // One promise per guard on the way back, not an async function's two.
  return promisedCall(handler, probed).then(
    (result) => {
      const stamped = stampRan(result, probe, request.toolCall.id);
      return then ? then(stamped) : stamped;
    },
    (error: unknown) => {
      if (leftToOthers(error, probe)) throw error;
      const stamped = stampRan(containedToolError(error, request.toolCall), probe, request.toolCall.id);
      return then ? then(stamped) : stamped;
    },
  );
}

/**
 * Whether an exception from the handler is not the guards' to answer: an interrupt or other graph
 * signal, a guard's `"throw"` stop, or an exception that came back through a middleware listed
 * after the guards (docs/composing.md). That middleware had the call in hand: a
 * `toolRetryMiddleware({ onFailure: "error" })` or a `toolErrorMiddleware` whose `onError` returns
 * nothing re-throws on purpose, and without the guards LangChain would end the run with it too.
 */
export function leftToOthers(error: unknown, probe: RunProbe): boolean {
  return isGraphBubbleUp(error) || GuardStopError.in(error) !== undefined || probe.passedOn;
}

/** LangChain's error ToolMessage for a tool's exception the guards contain, with the one-time composition warning. */
export function containedToolError(error: unknown, toolCall: CallLike["toolCall"]): ToolMessage {
  warnOnce("tool-error-outside", () => toolErrorOutsideText(toolCall.name), true);
  return defaultToolErrorMessage(error, toolCall);
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
