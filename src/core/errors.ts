/** Base class of every error harness-kit throws on purpose. */
export class HarnessKitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Thrown by a guard whose `exitBehavior` is `"throw"` when it would stop the run. LangChain wraps
 * what a wrap hook throws in its `MiddlewareError` (once per middleware it passes), and LangGraph
 * gathers the errors of parallel tool calls in an `AggregateError`, so `invoke` rejects with a
 * wrapper: `GuardStopError.in(error)` finds the stop inside.
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

  /** The GuardStopError `error` is or wraps (along `cause` and an AggregateError's `errors`), if any. */
  static in(error: unknown): GuardStopError | undefined {
    return findStop(error, 0, new Set());
  }
}

/** How deep `GuardStopError.in` looks: wrappers nest once per middleware and per parallel batch. */
const MAX_WRAP_DEPTH = 32;

/** Depth first through the errors `error` wraps, each visited once (a cause may point back). */
function findStop(error: unknown, depth: number, seen: Set<Error>): GuardStopError | undefined {
  if (!(error instanceof Error) || depth > MAX_WRAP_DEPTH || seen.has(error)) return undefined;
  if (error instanceof GuardStopError) return error;
  seen.add(error);
  for (const inner of wrappedBy(error)) {
    const stop = findStop(inner, depth + 1, seen);
    if (stop) return stop;
  }
  return undefined;
}

/** What an error wraps: its `cause`, and an AggregateError's `errors`. */
function wrappedBy(error: Error): unknown[] {
  const errors = error instanceof AggregateError && Array.isArray(error.errors) ? error.errors : [];
  return [error.cause, ...errors];
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
