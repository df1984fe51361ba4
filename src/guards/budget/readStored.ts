import type { CharRange, OffloadContext, OffloadStore, StoredSlice } from "../../offload/OffloadStore.js";
import { storeName, withStoreTimeout } from "../../offload/timeouts.js";

/**
 * Reads a stored result for the retrieval tool within `timeoutMs`: the page `range` through the
 * store's `read` when it has one (a page of a 10 MB file costs a page, not the file), else the
 * whole content through `get`. Without a range, the whole content.
 */
export async function readStored(
  store: OffloadStore,
  key: string,
  range: CharRange | undefined,
  context: OffloadContext,
  timeoutMs: number,
): Promise<StoredSlice | undefined> {
  const name = storeName(store);
  if (range && typeof store.read === "function") {
    return withStoreTimeout(store.read(key, range, context), timeoutMs, name, key, "read");
  }
  const text = await withStoreTimeout(store.get(key, context), timeoutMs, name, key, "read");
  if (typeof text !== "string") return undefined;
  if (!range) return { text, start: 0, total: text.length };
  const start = Math.min(Math.max(0, range.start), text.length);
  return { text: text.slice(start, Math.max(start, range.end)), start, total: text.length };
}
