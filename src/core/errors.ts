/** Base class of every error harness-kit throws on purpose. */
export class HarnessKitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Thrown by a guard whose `exitBehavior` is `"throw"` when it would stop the run. LangChain wraps
 * what a wrap hook throws in its `MiddlewareError` (once per middleware it passes), so `invoke`
 * rejects with that wrapper: `GuardStopError.in(error)` finds the stop inside.
 */
export class GuardStopError extends HarnessKitError {
  constructor(
    readonly guard: string,
    readonly reason: string,
    readonly toolName: string,
    readonly toolCallId: string,
  ) {
    super(`${guard} stopped the run: ${reason}`);
  }

  /** The GuardStopError `error` is or wraps (along its `cause` chain), if any. */
  static in(error: unknown): GuardStopError | undefined {
    for (let e = error, depth = 0; e instanceof Error && depth < 32; e = e.cause, depth++) {
      if (e instanceof GuardStopError) return e;
    }
    return undefined;
  }
}

/** Bad options passed to a middleware constructor. */
export class InvalidOptionsError extends HarnessKitError {
  constructor(
    readonly middleware: string,
    readonly option: string,
    readonly problem: string,
  ) {
    super(`${middleware}: option "${option}" ${problem}`);
  }
}

/** The first line of an error's message: enough to say what went wrong, without a stack. */
export function firstLineOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n", 1)[0]!.trim();
}
