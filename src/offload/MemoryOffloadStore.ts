import type { CharRange, OffloadContext, OffloadStore, StoredSlice } from "./OffloadStore.js";

/**
 * Keeps offloaded results in this process's memory, for tests, scripts and single-process
 * agents. Each thread's results are kept apart: one store serves many threads, and a key asked
 * for from another thread finds nothing. Entries live as long as the store: a checkpointed
 * thread resumed in another process will not find them (use `LangGraphOffloadStore` or
 * `FileSystemOffloadStore` there).
 *
 * @example new ToolResultBudgetMiddleware({ store: new MemoryOffloadStore() })
 */
export class MemoryOffloadStore implements OffloadStore {
  /** Results by thread scope (see `scopeOf`), then by key. */
  private readonly threads = new Map<string, Map<string, string>>();

  async put(key: string, content: string, context?: OffloadContext): Promise<void> {
    const scope = scopeOf(context);
    let entries = this.threads.get(scope);
    if (!entries) this.threads.set(scope, (entries = new Map()));
    entries.set(key, content);
  }

  async get(key: string, context?: OffloadContext): Promise<string | undefined> {
    return this.threads.get(scopeOf(context))?.get(key);
  }

  async read(key: string, range: CharRange, context?: OffloadContext): Promise<StoredSlice | undefined> {
    const content = await this.get(key, context);
    if (content === undefined) return undefined;
    const start = Math.min(Math.max(0, range.start), content.length);
    return { text: content.slice(start, Math.max(start, range.end)), start, total: content.length };
  }

  /** Number of results kept, all threads together. */
  get size(): number {
    let count = 0;
    for (const entries of this.threads.values()) count += entries.size;
    return count;
  }
}

/** Runs without a thread share one scope; a prefix keeps it apart from every real thread id. */
function scopeOf(context: OffloadContext | undefined): string {
  const threadId = context?.threadId;
  return threadId === undefined ? "none" : `thread:${threadId}`;
}
