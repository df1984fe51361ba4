import type { Hasher } from "../../observe/hash.js";
import type { OffloadStore } from "../../offload/OffloadStore.js";
import { offloadDigestInput, offloadKey } from "../../offload/keys.js";
import { storeName, withStoreTimeout } from "../../offload/timeouts.js";
import { storeFailureReason } from "../budget/texts.js";
import { keptAt } from "./replacements.js";
import type { KeptWhere } from "./texts.js";

/** Puts remembered per process, so a result offloaded at one step is not written again at the next. */
const MAX_REMEMBERED_PUTS = 10_000;

/** What a shortened message leaves out: named and identified for its key, its text built only if it must be written. */
export interface KeptContent {
  name: string;
  id: string;
  text: () => string;
}

/**
 * Stores what a request leaves out, under a key that names it, and says where it is (or why it
 * is not). The key is a hash of the content, computed once per message and purpose; a put is
 * done once per process and thread (a cache: a missing entry only costs a put again).
 */
export class OffloadKeeper {
  /** Puts already done in this process, by thread and key. */
  private readonly puts = new Map<string, Promise<KeptWhere>>();
  /** Per message: the key of what it leaves out, per purpose. */
  private readonly keys = new WeakMap<object, Map<string, string>>();

  /** `graphState`: the running task's whole state, for a store that reads it (deepagents' files). */
  constructor(
    private readonly store: OffloadStore,
    private readonly timeoutMs: number,
    private readonly graphState: () => Readonly<Record<string, unknown>>,
  ) {}

  /**
   * Stores what `owner` leaves out for `purpose`. A store that writes graph state (deepagents'
   * files) hands back an update, pushed to `collected` and written again with every request
   * that needs it.
   */
  keep(
    owner: object,
    purpose: string,
    stored: KeptContent,
    collected: Record<string, unknown>[],
    threadId: string | undefined,
    hash: Hasher,
  ): Promise<KeptWhere> {
    let keys = this.keys.get(owner);
    if (!keys) this.keys.set(owner, (keys = new Map()));
    let text: string | undefined;
    let key = keys.get(purpose);
    if (key === undefined) {
      text = stored.text();
      key = offloadKey(stored.name, stored.id, hash(offloadDigestInput(stored.name, stored.id, text)));
      keys.set(purpose, key);
    }
    const memo = `${threadId ?? ""}\u0000${key}`;
    const known = this.puts.get(memo);
    if (known) return known;
    const content = text ?? stored.text();
    const context = { toolName: stored.name, toolCallId: stored.id, threadId, state: this.graphState() };
    const put = withStoreTimeout(
      Promise.resolve().then(() => this.store.put(key, content, context)),
      this.timeoutMs,
      storeName(this.store),
      key,
      "put",
    ).then(
      (receipt) => {
        if (receipt?.stateUpdate) {
          collected.push(receipt.stateUpdate);
          this.puts.delete(memo);
        }
        return keptAt(key, receipt?.readHint);
      },
      (error: unknown) => {
        this.puts.delete(memo);
        return { failure: storeFailureReason(error).replace(/^storing them failed: /, "") } as KeptWhere;
      },
    );
    this.puts.set(memo, put);
    if (this.puts.size > MAX_REMEMBERED_PUTS) this.puts.delete(this.puts.keys().next().value!);
    return put;
  }
}
