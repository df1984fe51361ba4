import { HarnessKitError } from "../core/errors.js";

/** A thread file that could not be read as a list of messages. */
export class ThreadLoadError extends HarnessKitError {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`Cannot load thread ${file}: ${reason}`);
  }
}

/** A replay config file (`--config`, `--policy`) that cannot be read or does not describe a valid guard stack. */
export class ReplayConfigError extends HarnessKitError {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}
