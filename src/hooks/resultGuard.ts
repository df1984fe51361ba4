import { ToolMessage } from "@langchain/core/messages";
import type { ToolCallHandler } from "langchain";
import { emitSignal, type SignalHandler } from "../core/signals.js";
import { runToolSafely } from "../core/toolErrors.js";
import {
  rewriteCommandMessages,
  withRewrite,
  type RewriteToolMessage,
  type ToolCallResult,
  type ToolMessageRewrite,
} from "../core/toolResults.js";

/** The request of a `wrapToolCall` hook. */
export type ToolRequest = Parameters<ToolCallHandler>[0];

/** How one guard that rewrites tool results plugs into `wrapToolCall`. */
export interface ResultGuard {
  /** The guard's name, on its signals. */
  guard: string;
  onSignal: SignalHandler | undefined;
  /** The rewrite still runs (its signals go out), but the tool's messages are kept as they came. */
  observeOnly?: boolean;
  /** The reason on the `guard_failed` signal. Default `"guard_failed"`. */
  failureReason?: string;
  /**
   * The rewrite of one of the call's ToolMessages, or undefined when the guard leaves it alone (every
   * message of a call it does not judge). Answering synchronously when nothing changes keeps the
   * common case free of promises.
   */
  rewrite(message: ToolMessage, request: ToolRequest): ReturnType<RewriteToolMessage>;
  /** What a message becomes after the rewrite failed on it. Default: the tool's message as it came. */
  afterFailure?(message: ToolMessage, request: ToolRequest): ToolMessageRewrite | undefined;
}

/** A complete `wrapToolCall`: run the tool safely, then let the guard rewrite what it returned. */
export function resultGuardHook(
  guard: ResultGuard,
): (request: ToolRequest, handler: ToolCallHandler) => Promise<ToolCallResult> {
  return (request, handler) => runToolSafely(request, handler, (result) => guardResult(guard, request, result));
}

/**
 * The guard's rewrite of a tool's result (a ToolMessage, or the ToolMessages inside a Command),
 * for hooks that do more around the call (refuse it first, carry the answer). A failure of the
 * guard is a `guard_failed` warn, never an exception: the message it failed on keeps the tool's
 * answer (or `afterFailure`'s). Nothing to rewrite comes back as the same object, without a
 * promise when the rewrite answered at once.
 */
export function guardResult(
  guard: ResultGuard,
  request: ToolRequest,
  result: ToolCallResult,
): ToolCallResult | Promise<ToolCallResult> {
  if (!ToolMessage.isInstance(result)) {
    return rewriteCommandMessages(result, guardedRewrite(guard, request)).catch((error: unknown) =>
      failedWhole(guard, request, result, error),
    );
  }
  // One ToolMessage (nearly every result): the rewrite, observe-only and a failure share one promise
  // step at most, and a result the rewrite leaves alone at once comes back as it is. `settle`
  // written out, on purpose: it runs on every call, and through `settle` a step runs more of our code
  // (`npm run bench -- footprint`).
  let done: ReturnType<RewriteToolMessage>;
  try {
    done = guard.rewrite(result, request);
  } catch (error) {
    return recovered(guard, request, result, error);
  }
  return done === undefined ? result : settled(guard, request, result, done, answerOf, recovered);
}

/** `rewrite` for the messages of a Command, with failures caught per message and observe-only applied. */
function guardedRewrite(guard: ResultGuard, request: ToolRequest): RewriteToolMessage {
  return (message) => settle(guard, request, message, rewriteOf, failedMessage);
}

/**
 * The guard's rewrite of `message` turned into `answer` (after observe-only), or into `failed`
 * when it threw or rejected; synchronous when the rewrite answered at once.
 */
function settle<T>(
  guard: ResultGuard,
  request: ToolRequest,
  message: ToolMessage,
  answer: (done: ToolMessageRewrite | undefined, message: ToolMessage) => T,
  failed: (guard: ResultGuard, request: ToolRequest, message: ToolMessage, error: unknown) => Promise<T>,
): T | Promise<T> {
  let done: ReturnType<RewriteToolMessage>;
  try {
    done = guard.rewrite(message, request);
  } catch (error) {
    return failed(guard, request, message, error);
  }
  return settled(guard, request, message, done, answer, failed);
}

/** What `rewrite` answered, turned into `answer` (after observe-only), or into `failed` when it rejected. */
function settled<T>(
  guard: ResultGuard,
  request: ToolRequest,
  message: ToolMessage,
  done: ReturnType<RewriteToolMessage>,
  answer: (done: ToolMessageRewrite | undefined, message: ToolMessage) => T,
  failed: (guard: ResultGuard, request: ToolRequest, message: ToolMessage, error: unknown) => Promise<T>,
): T | Promise<T> {
  if (done instanceof Promise) {
    return done.then(
      (settled) => answer(guard.observeOnly ? undefined : settled, message),
      (error: unknown) => failed(guard, request, message, error),
    );
  }
  return answer(guard.observeOnly ? undefined : done, message);
}

function answerOf(done: ToolMessageRewrite | undefined, message: ToolMessage): ToolCallResult {
  return done ? withRewrite(done) : message;
}

function rewriteOf(done: ToolMessageRewrite | undefined): ToolMessageRewrite | undefined {
  return done;
}

async function recovered(
  guard: ResultGuard,
  request: ToolRequest,
  message: ToolMessage,
  error: unknown,
): Promise<ToolCallResult> {
  const fallback = await failedMessage(guard, request, message, error);
  return fallback ? withRewrite(fallback) : message;
}

async function failedMessage(
  guard: ResultGuard,
  request: ToolRequest,
  message: ToolMessage,
  error: unknown,
): Promise<ToolMessageRewrite | undefined> {
  await signalFailure(guard, request, message.tool_call_id, error);
  try {
    return guard.afterFailure?.(message, request);
  } catch {
    return undefined; // the fallback failed too: the tool's message goes on as it came
  }
}

/** Rewriting the result itself failed (not one message): the tool's result goes on unchanged. */
async function failedWhole(
  guard: ResultGuard,
  request: ToolRequest,
  result: ToolCallResult,
  error: unknown,
): Promise<ToolCallResult> {
  await signalFailure(guard, request, request.toolCall.id ?? "", error);
  return result;
}

function signalFailure(guard: ResultGuard, request: ToolRequest, toolCallId: string, error: unknown): Promise<void> {
  const reason = guard.failureReason ?? "guard_failed";
  return emitSignal(
    {
      guard: guard.guard,
      action: "warn",
      toolCallId,
      tool: request.toolCall.name,
      code: "guard_failed",
      reason,
      detail: { error: String(error) },
    },
    guard.onSignal,
  );
}
