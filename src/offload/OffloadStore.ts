/**
 * Where the budget puts tool results too large for the context, and where the retrieval tool
 * reads them back. Implement it to keep results anywhere (a bucket, a cache, a database); see
 * `examples/custom-offload-store.ts`.
 *
 * Every call carries the thread it works for (`context.threadId`): a store keeps each thread's
 * results apart, so one store can serve many threads and a key read from another thread finds
 * nothing. Keys are unique per result (see `offloadKey`), so a put never replaces another result.
 */
export interface OffloadStore {
  /**
   * Keeps `content` under `key` for `context.threadId`. Reject (throw) when it cannot: the budget
   * then truncates the result and tells the model the rest was not kept.
   */
  put(key: string, content: string, context: OffloadContext): Promise<OffloadReceipt | void>;
  /** The content stored under `key` for `context.threadId`, or `undefined` when there is none. */
  get(key: string, context: OffloadContext): Promise<string | undefined>;
  /**
   * Optional: characters `[start, end)` of the content and its total length, without reading the
   * rest (the retrieval tool pages through large results with it). Without it, `get` is used.
   */
  read?(key: string, range: CharRange, context: OffloadContext): Promise<StoredSlice | undefined>;
  /**
   * Optional: when the call `toolName(args)` reads back a result this store keeps, with a tool of
   * the agent's own (deepagents' `read_file` of a stored file), how to read on by lines. The
   * budget then does not store that read again: it shows the lines that fit and names the next
   * window.
   */
  lineReaderFor?(toolName: string, args: Readonly<Record<string, unknown>>): LineReader | undefined;
}

/** How the agent reads a stored result by lines with a tool of its own (deepagents' `read_file`). */
export interface LineReader {
  /** The tool that reads it (its budget sizes the windows), e.g. `"read_file"`. */
  tool: string;
  /** Read by the model after "To read it, ": the call that reads `limit` lines from line `offset` (0-based). */
  window(offset: number, limit: number): string;
  /** For a read back (`lineReaderFor`): the line (0-based) its answer starts at. */
  startLine?: number;
  /** For a read back: the key it reads, so the retrieval tool can read on inside a line too long for it. */
  key?: string;
}

/** The call a store is working for. */
export interface OffloadContext {
  toolName: string;
  toolCallId: string;
  /** The thread (`configurable.thread_id`) of the run; `undefined` when it has none. */
  threadId?: string;
  /** The graph state of the running agent, when there is one (deepagents keeps its files there). */
  state: Readonly<Record<string, unknown>>;
}

/** Character positions (UTF-16 code units, as `String.prototype.slice` counts them). */
export interface CharRange {
  start: number;
  end: number;
}

/** A part of a stored result: `text` is the content from `start` on; `total` its whole length. */
export interface StoredSlice {
  text: string;
  start: number;
  total: number;
}

/** What a store may add to the preview it was written for. */
export interface OffloadReceipt {
  /**
   * Read by the model after "To read it, ": how to read the content with tools it already has,
   * instead of the retrieval tool, e.g. `use read_file with file_path "/large_tool_results/x.txt"`.
   */
  readHint?: string;
  /** How to read the content by lines: the preview then names a window of lines that fits the budget. */
  lineReader?: LineReader;
  /** Graph state written together with the preview, e.g. deepagents' `files`. */
  stateUpdate?: Record<string, unknown>;
}
