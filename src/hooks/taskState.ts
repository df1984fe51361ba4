import { getCurrentTaskInput } from "@langchain/langgraph";

/**
 * The whole graph state of the running task: a wrapToolCall or wrapModelCall request carries only
 * the state keys its middleware declares, while an offload store (deepagents' files) reads others.
 * Empty outside a graph.
 */
export function currentTaskState(): Readonly<Record<string, unknown>> {
  try {
    const input = getCurrentTaskInput();
    return input !== null && typeof input === "object" ? (input as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
