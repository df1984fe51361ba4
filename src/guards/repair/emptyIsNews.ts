import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { emptyResultText } from "../../core/resultTexts.js";

/**
 * Whether a tool's empty result is worth a warn. LangChain tools declare no output, so the thread
 * is the only promise a tool has made: one that has answered with something before (a search that
 * found pages) went silent, which the model could take for an answer; one that has only ever
 * answered empty (a `think` tool, a fire-and-forget write) answered as it always does. Its first
 * empty answer is taken as normal too: there is nothing yet to contrast it with.
 */
export function emptyIsNews(tool: string, history: readonly BaseMessage[] | undefined): boolean {
  if (!history) return false;
  const silent = emptyResultText(tool);
  return history.some(
    (m) => ToolMessage.isInstance(m) && m.name === tool && m.status !== "error" && !isEmptyContent(m.content, silent),
  );
}

/** No text at all, or the stand-in this guard (or withSafeResults) wrote for an empty answer. */
function isEmptyContent(content: ToolMessage["content"], silent: string): boolean {
  if (typeof content === "string") return content === "" || content === silent;
  return content.length === 0;
}
