import { messageKind, toolCallIdOf, toolCallsOf } from "../core/messages.js";
import { ToolCallPairingError, type ToolCallPairingViolation } from "./errors.js";

export interface ToolCallPairingOptions {
  /**
   * Accept calls of the last AI message that have no answer yet, as in the state of a run
   * paused by an interrupt or seen from an afterModel hook. Default false.
   */
  allowPendingAtEnd?: boolean;
}

/**
 * The first place where `messages` break contract 1 (docs/architecture.md), or undefined when they keep it:
 * every tool call of an AI message is answered by exactly one ToolMessage with its id, after it
 * and before the next AI message, with nothing but ToolMessages in between, and no ToolMessage
 * answers a call that is not open. Works on message instances and plain dicts.
 */
export function findToolCallPairingViolation(
  messages: readonly unknown[],
  options: ToolCallPairingOptions = {},
): ToolCallPairingViolation | undefined {
  // Calls of the latest AI message: id -> answered yet.
  let open = new Map<string, boolean>();
  let callsIndex = -1;
  // Calls of earlier AI messages that were answered: id -> index of the AI message.
  const closed = new Map<string, number>();

  const firstUnanswered = (): string | undefined => {
    for (const [id, answered] of open) if (!answered) return id;
    return undefined;
  };

  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    const kind = messageKind(message);

    if (kind === "tool") {
      const id = toolCallIdOf(message);
      const answered = id === undefined ? undefined : open.get(id);
      const earlier = id === undefined ? undefined : closed.get(id);
      if (answered === undefined && earlier !== undefined) {
        return {
          kind: "duplicate-answer",
          index,
          toolCallId: id,
          description: `message ${index} answers call "${id}" of message ${earlier}, which was already answered.`,
        };
      }
      if (answered === undefined) {
        return {
          kind: "orphan-answer",
          index,
          toolCallId: id,
          description:
            id === undefined
              ? `message ${index} is a ToolMessage without a tool_call_id.`
              : `message ${index} is a ToolMessage for call "${id}", which no open AI tool call made.`,
        };
      }
      if (answered) {
        return {
          kind: "duplicate-answer",
          index,
          toolCallId: id,
          description: `message ${index} answers call "${id}" a second time (message ${callsIndex} made it once).`,
        };
      }
      open.set(id!, true);
      continue;
    }

    const unanswered = firstUnanswered();
    if (unanswered !== undefined) {
      const lateAnswer = kind === "ai" ? undefined : answeredLater(messages, index + 1, open);
      if (lateAnswer !== undefined) {
        return {
          kind: "interleaved",
          index,
          toolCallId: lateAnswer,
          description: `message ${index} (${kind}) comes between the AI message ${callsIndex} and the answer to its call "${lateAnswer}".`,
        };
      }
      return {
        kind: "unanswered",
        index: callsIndex,
        toolCallId: unanswered,
        description: `call "${unanswered}" of message ${callsIndex} has no ToolMessage before message ${index} (${kind}).`,
      };
    }
    if (kind !== "ai") continue;

    for (const id of open.keys()) closed.set(id, callsIndex);
    open = new Map();
    callsIndex = index;
    const withoutId = rawToolCalls(message).findIndex((call) => typeof call?.id !== "string" || call.id === "");
    if (withoutId !== -1) {
      return {
        kind: "missing-call-id",
        index,
        toolCallId: undefined,
        description: `tool call ${withoutId} of message ${index} has no id, so no ToolMessage can answer it.`,
      };
    }
    for (const call of toolCallsOf(message)) {
      if (open.has(call.id)) {
        return {
          kind: "duplicate-call-id",
          index,
          toolCallId: call.id,
          description: `message ${index} makes two tool calls with the same id "${call.id}".`,
        };
      }
      open.set(call.id, false);
    }
  }

  const unanswered = firstUnanswered();
  if (unanswered === undefined || options.allowPendingAtEnd) return undefined;
  return {
    kind: "unanswered",
    index: callsIndex,
    toolCallId: unanswered,
    description: `call "${unanswered}" of message ${callsIndex} has no ToolMessage (the messages end first).`,
  };
}

function rawToolCalls(message: unknown): Array<{ id?: unknown } | null | undefined> {
  const calls = (message as { tool_calls?: unknown } | null)?.tool_calls;
  return Array.isArray(calls) ? calls : [];
}

/** The first still-unanswered open call that a ToolMessage answers before the next AI message. */
function answeredLater(
  messages: readonly unknown[],
  from: number,
  open: ReadonlyMap<string, boolean>,
): string | undefined {
  for (let index = from; index < messages.length; index++) {
    const kind = messageKind(messages[index]);
    if (kind === "ai") return undefined;
    const id = kind === "tool" ? toolCallIdOf(messages[index]) : undefined;
    if (id !== undefined && open.get(id) === false) return id;
  }
  return undefined;
}

/** Throws a `ToolCallPairingError` describing the first pairing violation in `messages`. */
export function assertToolCallPairing(messages: readonly unknown[], options: ToolCallPairingOptions = {}): void {
  const violation = findToolCallPairingViolation(messages, options);
  if (violation) throw new ToolCallPairingError(violation);
}
