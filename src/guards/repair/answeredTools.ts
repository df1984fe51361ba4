import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { emptyResultText } from "../../core/resultTexts.js";

/**
 * The tools of a history that have answered with something: a ToolMessage that is no error and
 * holds text other than none (or the stand-in written for an empty answer). Kept on the history's
 * last message each time it is asked, so the next question reads only what came after it: a tool
 * that always answers empty (a `think` tool) costs no pass over the thread per call.
 */
export function toolsThatAnswered(history: readonly BaseMessage[]): ReadonlySet<string> {
  let from = history.length;
  let known: Answered | undefined;
  // Only what was read of this same history counts: a summary moves every message it keeps.
  while (from > 0 && !sameHistory((known = answeredUpTo.get(history[from - 1]!)), history, from)) from--;
  const tools = new Set(from > 0 ? known!.tools : undefined);
  for (let i = from; i < history.length; i++) {
    const message = history[i];
    if (
      ToolMessage.isInstance(message) &&
      message.name !== undefined &&
      message.status !== "error" &&
      !isEmptyContent(message.content, emptyResultText(message.name))
    )
      tools.add(message.name);
  }
  if (history.length > 0)
    answeredUpTo.set(history[history.length - 1]!, { length: history.length, first: history[0], tools });
  return tools;
}

/** The tools that answered in the first `length` messages of a history that starts with `first`. */
interface Answered {
  length: number;
  first: BaseMessage | undefined;
  tools: ReadonlySet<string>;
}

function sameHistory(known: Answered | undefined, history: readonly BaseMessage[], length: number): boolean {
  return known !== undefined && known.length === length && known.first === history[0];
}

// Keyed by message instance: a thread's own messages, gone when they are.
const answeredUpTo = new WeakMap<object, Answered>();

/** No text at all, or the stand-in for an empty answer (`silent`). */
function isEmptyContent(content: ToolMessage["content"], silent: string): boolean {
  if (typeof content === "string") return content === "" || content === silent;
  return content.length === 0;
}
