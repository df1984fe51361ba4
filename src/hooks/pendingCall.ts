import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import { guardToolMessage } from "../core/answers.js";
import type { StopFacts } from "../core/marks.js";
import { andThen, type MaybePromise } from "../core/maybePromise.js";
import { lastAiIndex, type ToolCallView } from "../core/messages.js";
import { emitSignal, observedDetail, type GuardAction, type SignalCode, type SignalHandler } from "../core/signals.js";
import { runToolSafely, type ToolHandler } from "../core/toolErrors.js";
import { withAnsweredBefore } from "./answeredBefore.js";
import { carriesNothing, withCarry, type GuardState } from "./carry.js";
import { readyHistory } from "./summaryRemovals.js";

// The per-call half of a guard that decides on pending tool calls before they run: the batch
// guards (batchGuard.ts), PathGuard and PolicyGuard all find the call, signal what they decided,
// and turn the decision into the call's answer the same way.

/** The part of LangChain's tool-call request these guards read. */
export interface ToolRequestLike {
  toolCall: { id?: string; name: string; args: unknown };
  state: GuardState;
}

export type { ToolHandler };

/**
 * How a call the guard lets through runs: `runToolSafely`, or a guard's own wrapper next to the
 * tool that does what it does and more (the repair guard's readableToolCall.ts), in its place.
 */
export type RunCall = <
  R extends {
    toolCall: { id?: string; name: string; args: unknown };
    tool?: unknown;
    state?: { messages?: readonly BaseMessage[] };
  },
>(
  request: R,
  handler: ToolHandler<R>,
) => Promise<ToolMessage | Command>;

/** Who decides, as the per-call flow reads it. */
export interface CallGuard {
  guard: string;
  /** Signals go out (with `detail.observeOnly`), but every call runs as the model sent it. */
  observeOnly: boolean;
  onSignal?: SignalHandler;
}

/** The call being decided, and the history that ends with the AIMessage that asked for it (`messages[at]`). */
export interface PendingCall {
  call: ToolCallView;
  messages: readonly BaseMessage[];
  at: number;
}

/** What the guard made of one call. */
export type CallAnswer<R> =
  /** The tool runs; with `request`, as the guard rewrote it. */
  | { kind: "run"; request?: R }
  /** The call does not run: the model reads `text` instead (a directive). */
  | { kind: "refuse"; text: string }
  /** The guard stopped the run: the call is answered with `text` and carries what the stop was. */
  | { kind: "stop"; text: string; stop: StopFacts }
  /** The guard answered the call itself (a reviewer's answer, the tool run another way). */
  | { kind: "answered"; result: ToolMessage | Command };

/**
 * A `wrapToolCall` for guards that judge history: the pending call and its history go to
 * `judge`, and the answer carries the history judged (carry.ts), so judgement survives a
 * summary. A call without an id, or with no AIMessage in the history, runs untouched.
 */
export function judgePendingCall<R extends ToolRequestLike>(
  request: R,
  handler: ToolHandler<R>,
  judge: (request: R, handler: ToolHandler<R>, pending: PendingCall) => MaybePromise<ToolMessage | Command>,
  run: RunCall = runToolSafely,
): Promise<ToolMessage | Command> {
  const id = request.toolCall.id;
  if (id === undefined) return run(request, handler);
  // `promised(() => andThen(...))` written out: no closure per call when the history is at hand.
  try {
    const history = readyHistory(request.state);
    if (history instanceof Promise)
      return history.then((messages) => judgeIn(request, handler, judge, id, messages, run));
    return Promise.resolve(judgeIn(request, handler, judge, id, history, run));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The call judged against `messages`; its answer carries what the guards carry, if anything. */
function judgeIn<R extends ToolRequestLike>(
  request: R,
  handler: ToolHandler<R>,
  judge: (request: R, handler: ToolHandler<R>, pending: PendingCall) => MaybePromise<ToolMessage | Command>,
  id: string,
  messages: readonly BaseMessage[],
  run: RunCall,
): MaybePromise<ToolMessage | Command> {
  // The AIMessage that asked: the latest.
  const at = lastAiIndex(messages);
  const call: ToolCallView = { id, name: request.toolCall.name, args: request.toolCall.args };
  const answer =
    at < 0
      ? run(request, handler)
      : withAnsweredBefore(messages, at, id, judge(request, handler, { call, messages, at }));
  return carriesNothing(request.state) ? answer : andThen(answer, (settled) => withCarry(request.state, id, settled));
}

/** The guard's signal on a call; in observe-only mode its detail says so. */
export function signalCall(
  guard: CallGuard,
  call: ToolCallView,
  signal: { action: GuardAction; code: SignalCode; reason: string; detail?: Record<string, unknown> },
): Promise<void> {
  const detail = observedDetail(signal.detail, guard.observeOnly);
  return emitSignal(
    {
      guard: guard.guard,
      action: signal.action,
      toolCallId: call.id,
      tool: call.name,
      code: signal.code,
      reason: signal.reason,
      detail,
    },
    guard.onSignal,
  );
}

/**
 * The call's answer: the guard's ToolMessage for a refusal or a stop, else the tool's, run so
 * that its exception becomes an error ToolMessage. An observe-only guard lets the call run as sent.
 */
export function answerCall<R extends { toolCall: { id?: string; name: string; args: unknown } }>(
  guard: CallGuard,
  request: R,
  handler: ToolHandler<R>,
  answer: CallAnswer<R>,
  run: RunCall = runToolSafely,
): Promise<ToolMessage | Command> | ToolMessage | Command {
  if (answer.kind === "answered") return answer.result;
  if (answer.kind === "run") return run(guard.observeOnly ? request : (answer.request ?? request), handler);
  if (guard.observeOnly) return run(request, handler);
  const call: ToolCallView = {
    id: request.toolCall.id ?? "",
    name: request.toolCall.name,
    args: request.toolCall.args,
  };
  if (answer.kind === "refuse") return guardToolMessage(call, guard.guard, "directive", answer.text);
  return guardToolMessage(call, guard.guard, "stop", answer.text, answer.stop);
}
