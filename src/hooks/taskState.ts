import { getCurrentTaskInput } from "@langchain/langgraph";
import { fields } from "../core/fields.js";

/**
 * The whole graph state of the running task: a wrapToolCall or wrapModelCall request carries only
 * the state keys its middleware declares, while an offload store (deepagents' files) reads others.
 * Empty outside a graph.
 */
export function currentTaskState(): Readonly<Record<string, unknown>> {
  try {
    return fields(getCurrentTaskInput());
  } catch {
    return {};
  }
}
