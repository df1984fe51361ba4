import { fields } from "../core/fields.js";

/**
 * The thread a run belongs to, from its RunnableConfig (`configurable.thread_id`, as LangGraph's
 * checkpointers use it); `undefined` for a run without one. Stores keep results per thread.
 */
export function threadIdOf(config: unknown): string | undefined {
  const id = fields(fields(config).configurable).thread_id;
  if (typeof id === "string" && id !== "") return id;
  return typeof id === "number" && Number.isFinite(id) ? String(id) : undefined;
}
