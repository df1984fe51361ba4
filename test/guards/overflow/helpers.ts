import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { RequestMeter } from "../../../src/guards/overflow/estimate.js";
import { contentText } from "../../../src/observe/content.js";

/** What one request the model received costs under `meter`: its messages (system prompt included) and the tools bound. */
export function seenTokens(meter: RequestMeter, seen: readonly BaseMessage[], tools: readonly unknown[]): number {
  return meter.fixed(undefined, tools) + meter.messages(seen);
}

/** The answers of read_stored_result in a thread. */
export function retrievalAnswers(messages: readonly BaseMessage[]): string[] {
  return messages
    .filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.name === "read_stored_result")
    .map((m) => contentText(m.content));
}
