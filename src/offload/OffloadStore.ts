/**
 * Where the budget puts tool results too large for the context, and where the retrieval tool
 * reads them back. Implement it to keep results anywhere (a bucket, a cache, a database); see
 * `examples/custom-offload-store.ts`.
 */
export interface OffloadStore {
  /**
   * Keeps `content` under `key`, replacing what was there. Reject (throw) when it cannot: the
   * budget then truncates the result and tells the model the rest was not kept.
   */
  put(key: string, content: string, context: OffloadContext): Promise<OffloadReceipt | void>;
  /** The content stored under `key`, or `undefined` when there is none. */
  get(key: string, context: OffloadContext): Promise<string | undefined>;
}

/** The call a store is working for. */
export interface OffloadContext {
  toolName: string;
  toolCallId: string;
  /** The graph state of the running agent, when there is one (deepagents keeps its files there). */
  state: Readonly<Record<string, unknown>>;
}

/** What a store may add to the preview it was written for. */
export interface OffloadReceipt {
  /**
   * Read by the model after "To read it, ": how to read the content with tools it already has,
   * instead of the retrieval tool, e.g. `use read_file with file_path "/large_tool_results/x.txt"`.
   */
  readHint?: string;
  /** Graph state written together with the preview, e.g. deepagents' `files`. */
  stateUpdate?: Record<string, unknown>;
}
