import { OffloadStoreError } from "./errors.js";

/** How long the budget and the retrieval tool wait for a store before going on without it. */
export const DEFAULT_STORE_TIMEOUT_MS = 10_000;

/** A store did not settle in time; its message is read by the model (see storeFailureReason). */
export class OffloadTimeoutError extends OffloadStoreError {
  constructor(
    store: string,
    key: string,
    readonly operation: "put" | "read",
    readonly timeoutMs: number,
  ) {
    super(store, key, `the store did not answer within ${formatMs(timeoutMs)} (${operation})`);
  }
}

/**
 * `work`, or a rejection with `OffloadTimeoutError` once `timeoutMs` has passed: a store that
 * never settles must not hold the run. The work itself cannot be cancelled and may still settle
 * later; its result is then ignored (a late rejection is caught, so it is not unhandled).
 */
export function withStoreTimeout<T>(
  work: Promise<T>,
  timeoutMs: number,
  store: string,
  key: string,
  operation: "put" | "read",
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OffloadTimeoutError(store, key, operation, timeoutMs)), timeoutMs);
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The name a store is reported under: its class name, or "the offload store". */
export function storeName(store: object): string {
  const name = (store as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" && name !== "Object" ? name : "the offload store";
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
