import { contentOf, messageKind, statusOf, toolCallIdOf, toolCallsOf } from "../../src/core/messages.js";
import { canonicalJson } from "../../src/observe/canonical.js";
import { contentText } from "../../src/observe/content.js";

/** One tool call of a recorded thread, as the re-implemented detectors see it. */
export interface CallEvent {
  /** Position among the thread's tool calls, from 0. */
  index: number;
  toolCallId: string;
  tool: string;
  /** Tool name and canonical JSON arguments: equal keys are identical calls. */
  key: string;
  argsKey: string;
  /** The result text; undefined when no tool message answers the call. */
  result?: string;
  isError: boolean;
  /** Human messages before the call. */
  userTurn: number;
}

const ERROR_TEXT = /^\s*(?:error|exception|traceback)\b/i;

/** The thread's tool calls in order, each with its result. */
export function callEvents(messages: readonly unknown[]): CallEvent[] {
  const events: CallEvent[] = [];
  const byId = new Map<string, CallEvent>();
  let userTurn = 0;
  for (const message of messages) {
    const kind = messageKind(message);
    if (kind === "human") userTurn++;
    if (kind === "ai") {
      for (const call of toolCallsOf(message)) {
        const argsKey = canonicalJson(call.args ?? {});
        const event: CallEvent = {
          index: events.length,
          toolCallId: call.id,
          tool: call.name,
          key: `${call.name}\u0000${argsKey}`,
          argsKey,
          isError: false,
          userTurn,
        };
        events.push(event);
        byId.set(call.id, event);
      }
    }
    if (kind === "tool") {
      const event = byId.get(toolCallIdOf(message) ?? "");
      if (event && event.result === undefined) {
        event.result = contentText(contentOf(message));
        event.isError = statusOf(message) === "error" || ERROR_TEXT.test(event.result);
      }
    }
  }
  return events;
}

/** A detector's intervention on a call it would not have let run. */
export interface BaselineFlag {
  callIndex: number;
  toolCallId: string;
  tool: string;
  reason: string;
}

/** A loop detector another project ships, re-implemented from its published behaviour. */
export interface Baseline {
  name: string;
  /** What the project does when the detector fires. */
  intervention: string;
  /** The rule, in one sentence. */
  rule: string;
  /** Judges each call before it runs, knowing the results of the calls before it. */
  detect(calls: readonly CallEvent[]): BaselineFlag[];
}

export function flag(call: CallEvent, reason: string): BaselineFlag {
  return { callIndex: call.index, toolCallId: call.toolCallId, tool: call.tool, reason };
}
