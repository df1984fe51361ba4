/**
 * What the guards tell the person who composed the agent when they meet a sign that a LangChain
 * built-in listed before them cannot do its job (docs/composing.md). Each warning is printed once
 * per process: it is about how the agent is built, not about one run.
 */

/** The guards answered a tool's exception: a retry or error middleware outside them never sees it. */
export function toolErrorOutsideText(tool: string): string {
  return (
    `harness-kit: the guards answered an exception of tool "${tool}" with an error message, as LangChain does without middleware. ` +
    "If a toolRetryMiddleware or toolErrorMiddleware is listed before the guards, it never sees a tool's exception: " +
    "list it after ...recommendedGuards().agent, next to the tool (docs/composing.md)."
  );
}

/** A model call failed inside the guards: LangChain wraps the error at every middleware it leaves. */
export function modelErrorOutsideText(): string {
  return (
    "harness-kit: a model call failed inside the guards. LangChain wraps the error in a MiddlewareError at each middleware it leaves, " +
    "so if a modelRetryMiddleware is listed before the guards, it cannot match its retryOn error classes: " +
    "list modelRetryMiddleware after ...recommendedGuards().agent, next to the model (docs/composing.md)."
  );
}

const warned = new Set<string>();

/** Prints `text` once per process for `key`. */
export function warnOnce(key: string, text: () => string): void {
  if (warned.has(key)) return;
  warned.add(key);
  console.warn(text());
}

/** For tests: every warning may be printed again. */
export function resetCompositionWarnings(): void {
  warned.clear();
}
