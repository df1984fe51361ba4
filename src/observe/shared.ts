import { loadedHasher, loadHasher, type Hasher } from "./hash.js";
import { ObservationStore, type ObservationOptions } from "./store.js";

/** The options every guard uses unless it has novelty or normalisation options of its own. */
export const DEFAULT_OBSERVATION_OPTIONS: ObservationOptions = Object.freeze({});

const stores = new WeakMap<object, Map<ObservationOptions, ObservationStore>>();

/** A history's observation store, with the hasher that fingerprints what is not in it yet. */
export interface Observed {
  store: ObservationStore;
  hash: Hasher;
}

/**
 * The observation store for a history, shared by every guard that passes the same options
 * object. It is a cache, not state: stores are found by the history's first message, and a store
 * that does not match the history rebuilds itself, so a restored or foreign thread gets the
 * same answer as a full rebuild.
 */
export async function observationsFor(messages: readonly unknown[], options: ObservationOptions): Promise<Observed> {
  return observationsNow(messages, options, await loadHasher())!;
}

/**
 * `observationsFor` without waiting, once the hasher is loaded (see `loadedHasher`): the guards'
 * hooks run on every step, and a promise per hook costs more than the update itself.
 */
export function observationsNow(
  messages: readonly unknown[],
  options: ObservationOptions,
  hash: Hasher | undefined = loadedHasher(),
): Observed | undefined {
  if (hash === undefined) return undefined;
  const head = messages[0];
  if (head === null || typeof head !== "object") {
    const store = new ObservationStore(hash, options);
    store.update(messages);
    return { store, hash };
  }
  let byOptions = stores.get(head);
  if (!byOptions) {
    byOptions = new Map();
    stores.set(head, byOptions);
  }
  let store = byOptions.get(options);
  if (!store) {
    store = new ObservationStore(hash, options);
    byOptions.set(options, store);
  }
  store.update(messages);
  return { store, hash };
}

/**
 * Drops the stores kept for the history that starts with `head`, and returns them (what was
 * derived from their observations may be dropped too). For a caller that is done with a history,
 * as eval is after each thread: left to the collector, a weakly kept store outlives its thread
 * through every young-generation collection until a full one (bench/README.md, issue 27).
 */
export function forgetObservations(head: unknown): ObservationStore[] {
  if (head === null || typeof head !== "object") return [];
  const byOptions = stores.get(head);
  stores.delete(head);
  return byOptions ? [...byOptions.values()] : [];
}

/**
 * `judge(observations, argument)` for a history: at once when the hasher is loaded (a guard's
 * hook runs on every step, and a promise per hook costs more than the update itself), else once
 * it is. The argument is passed through so that a caller needs no closure per step.
 */
export function withObservations<A, T>(
  messages: readonly unknown[],
  options: ObservationOptions,
  judge: (observed: Observed, argument: A) => T,
  argument: A,
): T | Promise<T> {
  const observed = observationsNow(messages, options);
  return observed
    ? judge(observed, argument)
    : observationsFor(messages, options).then((ready) => judge(ready, argument));
}
