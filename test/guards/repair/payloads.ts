import { convertPromptToAnthropic } from "@langchain/anthropic";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { convertMessagesToCompletionsMessageParams, convertMessagesToResponsesInput } from "@langchain/openai";

/**
 * Contract 1 checked where it matters to the provider: the request payload the real
 * @langchain/openai and @langchain/anthropic converters build from a history. Each function
 * returns the first pairing problem, or undefined.
 */

type Loose = Record<string, any>;

/** Chat Completions: an assistant message's tool_calls are answered, each once, by the "tool" messages right after it. */
export function openAICompletionsProblem(payload: Loose[]): string | undefined {
  let open = new Set<string>();
  for (const [index, message] of payload.entries()) {
    if (message.role === "tool") {
      if (!open.delete(message.tool_call_id))
        return `message ${index}: tool result for ${message.tool_call_id}, which no open assistant tool call made`;
      continue;
    }
    if (open.size > 0) return `message ${index}: tool calls ${[...open].join(", ")} have no result`;
    open = new Set((message.tool_calls ?? []).map((call: Loose) => call.id));
  }
  return open.size > 0 ? `tool calls ${[...open].join(", ")} have no result at the end` : undefined;
}

/** Responses API: every function_call_output answers an earlier, unanswered function_call; none is left open before the next message. */
export function openAIResponsesProblem(items: Loose[]): string | undefined {
  const open = new Set<string>();
  for (const [index, item] of items.entries()) {
    if (item.type === "function_call") open.add(item.call_id);
    else if (item.type === "function_call_output") {
      if (!open.delete(item.call_id))
        return `item ${index}: output for ${item.call_id}, which no open function_call made`;
    } else if (open.size > 0 && item.role === "user")
      return `item ${index}: calls ${[...open].join(", ")} have no output`;
  }
  return open.size > 0 ? `calls ${[...open].join(", ")} have no output at the end` : undefined;
}

/** Anthropic Messages: an assistant turn's tool_use blocks are answered by tool_result blocks in the very next user turn, and only there. */
export function anthropicProblem(payload: Loose[]): string | undefined {
  let open = new Set<string>();
  for (const [index, message] of payload.entries()) {
    const blocks: Loose[] = Array.isArray(message.content) ? message.content : [];
    const results = blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id as string);
    for (const id of results)
      if (!open.delete(id))
        return `message ${index}: tool_result for ${id}, which the previous assistant turn did not request`;
    if (open.size > 0) return `message ${index}: tool_use ${[...open].join(", ")} not answered in the next user turn`;
    open = new Set(
      message.role === "assistant" ? blocks.filter((b) => b.type === "tool_use").map((b) => b.id as string) : [],
    );
  }
  return open.size > 0 ? `tool_use ${[...open].join(", ")} not answered at the end` : undefined;
}

/** Every provider problem of a LangChain history, by converter. */
export function providerPayloadProblems(messages: BaseMessage[]): Record<string, string | undefined> {
  return {
    openaiCompletions: openAICompletionsProblem(
      convertMessagesToCompletionsMessageParams({ messages, model: "gpt-4o" }) as Loose[],
    ),
    openaiResponses: openAIResponsesProblem(
      convertMessagesToResponsesInput({ messages, model: "gpt-4o", zdrEnabled: false }) as Loose[],
    ),
    anthropic: anthropicProblem(convertPromptToAnthropic(new ChatPromptValue(messages)).messages as Loose[]),
  };
}

export const NO_PROBLEMS = { openaiCompletions: undefined, openaiResponses: undefined, anthropic: undefined };
