import { HarnessKitError } from "../core/errors.js";

/** An offload store could not keep or read a result. */
export class OffloadStoreError extends HarnessKitError {
  constructor(
    readonly store: string,
    readonly key: string,
    readonly problem: string,
  ) {
    super(`${store}: ${problem} (key "${key}")`);
  }
}
