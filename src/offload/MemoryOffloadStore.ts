import type { OffloadStore } from "./OffloadStore.js";

/**
 * Keeps offloaded results in this process's memory, for tests, scripts and single-process
 * agents. Entries live as long as the store: a checkpointed thread resumed in another process
 * will not find them (use `LangGraphOffloadStore` or `FileSystemOffloadStore` there).
 *
 * @example new ToolResultBudgetMiddleware({ store: new MemoryOffloadStore() })
 */
export class MemoryOffloadStore implements OffloadStore {
  private readonly entries = new Map<string, string>();

  async put(key: string, content: string): Promise<void> {
    this.entries.set(key, content);
  }

  async get(key: string): Promise<string | undefined> {
    return this.entries.get(key);
  }

  /** Number of results kept. */
  get size(): number {
    return this.entries.size;
  }
}
