import { HarnessKitError } from "../core/errors.js";

/** The command line asks for something the CLI cannot do (unknown command or flag, missing value). */
export class CliUsageError extends HarnessKitError {
  constructor(readonly problem: string) {
    super(problem);
  }
}

/** A `--config` file that cannot be read or does not describe a valid guard stack. */
export class ReplayConfigError extends HarnessKitError {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}
