import { contentText } from "../../observe/content.js";
import { messageKind, nameOf, toolCallIdOf, toolCallsOf } from "../../core/messages.js";
import type { SignalCode } from "../../core/signalCodes.js";
import { readBackSource } from "../budget/readBack.js";
import { RETRIEVAL_TOOL_NAME } from "../budget/texts.js";

/**
 * Text the context-overflow guard writes into a request. Tool results it shortens use the
 * budget's own preview notices (budget/texts.ts); these are the rest.
 */

/**
 * Where a shortened part went: a store key and how to read it, or why it was not kept
 * (`failure`: the store's error in one short line).
 */
export type KeptWhere = { key: string; howToRead: string; storeHint?: boolean } | { key?: undefined; failure: string };

function whereText(where: KeptWhere): string {
  return where.key !== undefined
    ? `It is stored under the key "${where.key}"; to read it, ${where.howToRead}.`
    : `It could not be kept: the store failed (${where.failure}).`;
}

/** Read by the model in place of the text of an earlier AI or user message. */
export function shortenedMessageText(speaker: "assistant" | "user" | "other", chars: number, where: KeptWhere): string {
  const whose =
    speaker === "assistant"
      ? "your earlier message"
      : speaker === "user"
        ? "an earlier user message"
        : "an earlier message";
  return `[The text of ${whose} (${chars} characters) was left out of this request to fit the model's context window. ${whereText(where)}]`;
}

/** Read by the model in place of a long tool-call argument (the arguments keep their shape). */
export function shortenedArgument(chars: number, where: KeptWhere): string {
  return where.key !== undefined
    ? `[${chars} characters left out to fit the context window; the call's full arguments are stored under the key "${where.key}"]`
    : `[${chars} characters left out to fit the context window; not kept]`;
}

/** Read by the model in place of a tool result left out of the request. */
export function resultStubText(tool: string | undefined, chars: number, mediaBlocks: number, where: KeptWhere): string {
  const name = (tool ?? "a tool").slice(0, 64);
  const media = mediaBlocks === 0 ? "" : mediaBlocks === 1 ? " and a media block" : ` and ${mediaBlocks} media blocks`;
  const kept =
    where.key !== undefined
      ? `It is stored under the key "${where.key}"${media ? " (media as base64 text)" : ""}; to read it, ${where.howToRead}.`
      : `It could not be kept: the store failed (${where.failure}); call ${name} again if you need it.`;
  return `[The result of ${name} (${chars} characters${media}) was left out of this request to fit the model's context window. ${kept}]`;
}

/**
 * Read by the model in place of a read back (an answer of the retrieval tool, a `read_file` of a
 * stored file) left out of the request: that text is already stored, so the notice points to
 * where it was read, not to a copy. `again` says how to read it again.
 */
export function readBackStubText(chars: number, key: string, offset: number, again: string): string {
  return `[Your read of the result stored under the key "${key}" (${chars} characters from offset ${offset}) was left out of this request to fit the model's context window. It is still stored there; ${again}.]`;
}

/** One stored part of a dropped span: the messages it holds (positions in the request) and where. */
export interface SpanPart {
  first: number;
  last: number;
  where: KeptWhere;
}

/** Read by the model where earlier messages were left out of the request altogether. */
export function droppedSpanNote(messages: number, toolResults: number, parts: readonly SpanPart[]): string {
  const what =
    toolResults > 0
      ? `${messages} earlier messages (${toolResults} of them tool results)`
      : `${messages} earlier messages`;
  const kept =
    parts.length === 1
      ? whereText(parts[0]!.where)
      : `They are kept in ${parts.length} parts: ${parts.map((part) => `messages ${part.first}-${part.last}: ${partText(part.where)}`).join("; ")}.`;
  return `[harness-kit: ${what} were left out here to fit the model's context window. ${kept} Read them only if you need them.]`;
}

function partText(where: KeptWhere): string {
  return where.key !== undefined
    ? `key "${where.key}" (${where.howToRead})`
    : `not kept, the store failed (${where.failure})`;
}

/** The parts of the smallest request, as the stop explains them (see `RoomTaken` in assess.ts). */
export interface RoomParts {
  fixed: number;
  user: number;
  turn: number;
  rest: number;
  limit: number | undefined;
  providerReserve?: number;
  proof: "provider" | "estimate";
}

/** Read by the user: why the run ended (after the final message's "Run stopped by ...: context_overflow — "). */
export function overflowStopExplanation(
  cause: "cannot_fit" | "still_refused",
  window: number | undefined,
  room?: RoomParts,
): string {
  const size = window === undefined ? "the model's context window" : `the model's context window (${window} tokens)`;
  if (cause === "still_refused" || !room) {
    return `the provider refused the request as too long for ${size}, again after the guard shortened it. Earlier results are kept in the offload store; start a new thread or use a model with a larger window.`;
  }
  if (room.providerReserve !== undefined && window !== undefined && room.providerReserve >= window - 1) {
    return `the provider keeps ${room.providerReserve} tokens of ${size} for the answer (the model's max_tokens), which leaves no room for the request. Lower the model's maxTokens, or use a model with a larger window.`;
  }
  const parts = [
    {
      tokens: room.fixed,
      what: "the system prompt and the tool schemas",
      fix: "shorten the system prompt or offer fewer tools",
    },
    { tokens: room.user, what: "the latest user message", fix: "shorten the latest message" },
    {
      tokens: room.turn,
      what: "the current turn (the model's last message, its tool calls and their results)",
      fix: "split the step into smaller tool calls and results",
    },
    { tokens: room.rest, what: "the notes standing in for earlier messages", fix: "start a new thread" },
  ]
    .filter((part) => part.tokens > 0)
    .sort((a, b) => b.tokens - a.tokens);
  const total = parts.reduce((sum, part) => sum + part.tokens, 0);
  const limit = room.limit === undefined ? "" : `, more than the ${room.limit} it may use`;
  const why = room.proof === "provider" ? "the provider refused it" : "even at the estimate's largest error it is over";
  const listed = parts.map((part) => `${part.what} about ${part.tokens}`).join(", ");
  return `the request cannot fit ${size}: shortened as far as it goes it still takes about ${total} tokens${limit}, and ${why}. Of those, ${listed}. To go on, ${parts[0]?.fix ?? "shorten the request"}, or use a model with a larger window.`;
}

/**
 * What a dropped span is stored as, read back with the retrieval tool: each message with its
 * role, tool calls and full text, so nothing the request left out is lost.
 */
export function transcriptOf(messages: readonly unknown[], firstIndex: number): string {
  const parts: string[] = [];
  messages.forEach((message, k) => {
    const kind = messageKind(message);
    const head = `[message ${firstIndex + k}] ${kind === "ai" ? "assistant" : kind === "human" ? "user" : kind === "tool" ? `tool result of ${nameOf(message) ?? "a tool"} (call ${toolCallIdOf(message) ?? "?"})` : kind}`;
    const calls =
      kind === "ai" ? toolCallsOf(message).map((c) => `calls ${c.name} (call ${c.id}) with ${safeJson(c.args)}`) : [];
    const full = contentText((message as { content?: unknown } | null)?.content);
    const source = kind === "tool" && nameOf(message) === RETRIEVAL_TOOL_NAME ? readBackSource(full) : undefined;
    const text = source
      ? `(${full.length} characters read back from the key "${source.key}" at offset ${source.offset}; still stored there)`
      : full;
    parts.push([head, ...calls, text].filter((line) => line !== "").join("\n"));
  });
  return parts.join("\n\n");
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "{}";
  } catch {
    return String(value);
  }
}

/** The signal codes of the context-overflow guard (listed in core/signalCodes.ts). */
export type ContextOverflowCode = Extract<
  SignalCode,
  "request_shrunk" | "over_window" | "provider_refused" | "context_overflow" | "guard_failed"
>;

/** Read by people: the sentence a signal carries beside its code. */
export function signalReason(code: ContextOverflowCode, detail: Record<string, unknown>): string {
  switch (code) {
    case "request_shrunk":
      return `the request (about ${String(detail.estimatedTokens)} tokens) was over the limit of ${String(detail.limit ?? "the provider")} and was shrunk to about ${String(detail.sentTokens)}`;
    case "over_window":
      return `the request (about ${String(detail.estimatedTokens)} tokens) is over the limit of ${String(detail.limit)}; observe-only, sent as it is`;
    case "provider_refused":
      return `the provider refused the request as too long: ${String(detail.error)}`;
    case "context_overflow":
      return detail.cause === "cannot_fit"
        ? "the request cannot be shrunk to fit the model's window; the run stops"
        : "the provider refused the shrunk request too; the run stops";
    case "guard_failed":
      return `the guard failed and let the request through: ${String(detail.error)}`;
  }
}
