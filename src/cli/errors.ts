import { HarnessKitError } from "../core/errors.js";

/** The command line asks for something the CLI cannot do (unknown command or flag, missing value). */
export class CliUsageError extends HarnessKitError {
  constructor(readonly problem: string) {
    super(problem);
  }
}
