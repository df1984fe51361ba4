import type { AIMessage } from "@langchain/core/messages";
import { rawArgumentsOf } from "./rawArguments.js";
import type { ToolSpecs } from "./toolSpecs.js";

interface ParsedCall {
  id?: string;
  name?: string;
  args?: unknown;
}

/**
 * Whether the parsed calls of a model turn certainly need no review, known without running it:
 * each names a tool the request offers, and the wire text of its arguments, where the message
 * still carries it, is what `JSON.stringify` prints for the arguments the provider parsed.
 * Nearly every turn is such a turn; any other takes the full review (which may still find
 * nothing). The turn's invalid calls are the caller's to check.
 *
 * Sound for `reviewTurn`, which reviews a parsed call only when its tool is not offered (nor a
 * response format's) or its wire text is not unambiguous JSON: `JSON.stringify` prints strict
 * JSON, each key of an object once, and each number as the shortest text that reads back as the
 * same double, so its text parses, holds no duplicate key and no number a parser rounds.
 */
export function isPlainTurn(calls: readonly ParsedCall[], tools: ToolSpecs, message: AIMessage): boolean {
  for (const call of calls) if (call.name === undefined || !tools.has(call.name)) return false;
  // rawArgumentsOf reads wire text in these two places only: without them no call has any.
  if (!Array.isArray(message.additional_kwargs?.tool_calls) && !Array.isArray(message.content)) return true;
  const raw = rawArgumentsOf(message);
  if (raw.size === 0) return true;
  for (const call of calls) {
    const text = raw.get(call.id ?? "");
    if (text === undefined) continue;
    let printed: string | undefined;
    try {
      printed = JSON.stringify(call.args);
    } catch {
      return false; // a BigInt or a cycle: the review judges the wire text itself
    }
    if (text !== printed) return false;
  }
  return true;
}
