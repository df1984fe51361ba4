import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { messageKind } from "../core/messages.js";
import { CHARS_PER_TOKEN } from "../core/tokens.js";
import { estimatedChars, usageOf } from "../guards/runaway/ledger.js";

/** Tokens a provider counts that a saved thread does not hold: the system prompt and the tool schemas. */
export const DEFAULT_SYSTEM_TOKENS = 8_000;

/**
 * The thread as a provider would have billed it, for threads recorded without `usage_metadata`:
 * each AI message gets input tokens = `systemTokens` + every message before it, and output
 * tokens = the message itself, at 4 characters per token. A thread in which any AI message
 * carries usage is returned as it is: its provider's counts are better than this guess.
 * Only AI messages are replaced (by copies); the others stay the same objects.
 */
export function simulateUsage(messages: readonly BaseMessage[], systemTokens = DEFAULT_SYSTEM_TOKENS): BaseMessage[] {
  if (messages.some((m) => messageKind(m) === "ai" && usageOf(m) !== undefined)) return [...messages];
  let context = 0;
  return messages.map((message) => {
    const chars = estimatedChars(message);
    const read = context;
    context += chars;
    if (messageKind(message) !== "ai") return message;
    const input = Math.round(systemTokens + read / CHARS_PER_TOKEN);
    const output = Math.round(chars / CHARS_PER_TOKEN);
    return withUsage(message, { input_tokens: input, output_tokens: output, total_tokens: input + output });
  });
}

type Usage = { input_tokens: number; output_tokens: number; total_tokens: number };

/** A copy of an AI message with usage: a message instance stays an instance, a plain dict a dict. */
function withUsage(message: BaseMessage, usage: Usage): BaseMessage {
  if (!AIMessage.isInstance(message))
    return { ...(message as object), usage_metadata: usage } as unknown as BaseMessage;
  return new AIMessage({
    content: message.content,
    tool_calls: message.tool_calls,
    invalid_tool_calls: message.invalid_tool_calls,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    ...(message.id !== undefined ? { id: message.id } : {}),
    ...(message.name !== undefined ? { name: message.name } : {}),
    usage_metadata: usage,
  });
}
