import { InvalidOptionsError } from "../../core/errors.js";

/** Identifies "the same call" for the last-known-good cache. */
export interface LastKnownGoodKey {
  tool: string;
  /** xxhash64 of the canonical JSON of the call's arguments. */
  argsFingerprint: string;
  /** The thread the call ran in (`configurable.thread_id`), when there is one. */
  threadId: string | undefined;
}

export interface LastKnownGoodEntry {
  /** The validated content the model read, before any envelope. */
  content: string;
  /** When it was stored, in ms since the epoch. */
  storedAt: number;
}

/**
 * Where `degrade` finds the last valid output of a call. Implement it over a shared store
 * (Redis, a database) so that every process serving a thread sees the same values.
 */
export interface LastKnownGoodCache {
  get(key: LastKnownGoodKey): LastKnownGoodEntry | undefined | Promise<LastKnownGoodEntry | undefined>;
  set(key: LastKnownGoodKey, entry: LastKnownGoodEntry): void | Promise<void>;
}

export interface InMemoryLastKnownGoodCacheOptions {
  /** Entries kept; the least recently stored go first. Default 1000. */
  maxEntries?: number;
}

/**
 * A process-local cache, scoped by thread so that one conversation never reads another's data.
 * It is lost on restart and not shared between processes.
 */
export class InMemoryLastKnownGoodCache implements LastKnownGoodCache {
  private readonly entries = new Map<string, LastKnownGoodEntry>();
  private readonly maxEntries: number;

  constructor(options: InMemoryLastKnownGoodCacheOptions = {}) {
    const maxEntries = options.maxEntries ?? 1000;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new InvalidOptionsError(
        "InMemoryLastKnownGoodCache",
        "maxEntries",
        `must be a whole number >= 1, got ${String(maxEntries)}`,
      );
    }
    this.maxEntries = maxEntries;
  }

  get(key: LastKnownGoodKey): LastKnownGoodEntry | undefined {
    return this.entries.get(keyText(key));
  }

  set(key: LastKnownGoodKey, entry: LastKnownGoodEntry): void {
    const text = keyText(key);
    this.entries.delete(text);
    this.entries.set(text, entry);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

function keyText(key: LastKnownGoodKey): string {
  return `${key.threadId ?? ""}\u0000${key.tool}\u0000${key.argsFingerprint}`;
}
