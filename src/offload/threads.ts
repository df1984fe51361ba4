/**
 * The thread a run belongs to, from its RunnableConfig (`configurable.thread_id`, as LangGraph's
 * checkpointers use it); `undefined` for a run without one. Stores keep results per thread.
 */
export function threadIdOf(config: unknown): string | undefined {
  if (config === null || typeof config !== "object") return undefined;
  const configurable = (config as { configurable?: unknown }).configurable;
  if (configurable === null || typeof configurable !== "object") return undefined;
  const id = (configurable as { thread_id?: unknown }).thread_id;
  if (typeof id === "string" && id !== "") return id;
  return typeof id === "number" && Number.isFinite(id) ? String(id) : undefined;
}
