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

/** A LangChain file of `agents/middleware/`, by its name: where a built-in's hook runs. */
const builtinFile = (file: string) => new RegExp(`[\\\\/]agents[\\\\/]middleware[\\\\/]${file}\\.[cm]?[jt]s`);

/** LangChain's built-ins that need to be listed after the guards, by the file their hook runs in. */
const NEED_INSIDE = {
  tool: [
    {
      file: builtinFile("toolRetry"),
      name: "toolRetryMiddleware",
      why: "it never sees a tool's exception (the guards answer it)",
    },
    {
      file: builtinFile("toolError"),
      name: "toolErrorMiddleware",
      why: "it never sees a tool's exception (the guards answer it)",
    },
  ],
  model: [
    {
      file: builtinFile("modelRetry"),
      name: "modelRetryMiddleware",
      why: "LangChain wraps a model error in a MiddlewareError at each middleware it leaves, so its retryOn classes cannot match",
    },
  ],
};

/** Read by the person who built the agent: `name` is listed before the guards. */
export function listedBeforeText(name: string, why: string): string {
  return `harness-kit: ${name} is listed before the guards, where ${why}: list it after ...recommendedGuards().agent (docs/composing.md).`;
}

// Whether the callers of a guard's hook showed LangChain's own files: then what is listed before
// the guards is known, and a warning on a mere sign of it (`warnOnce` of an exception) says nothing more.
let callersVisible = false;

/**
 * Names, once per process, the LangChain built-ins listed before the guards that cannot do their
 * job there. The guards never see the list given to `createAgent`, but their hook's callers are
 * on the stack: an outer middleware calls the handler that leads to them. Called on the first
 * call of a stack's hook; a bundle that renames LangChain's files leaves the signs below to warn.
 */
export function warnOfBuiltinsBefore(hook: keyof typeof NEED_INSIDE): void {
  const stack = callerFiles();
  if (/langchain[\\/](?:dist|src)[\\/]agents[\\/]/.test(stack)) callersVisible = true;
  for (const { file, name, why } of NEED_INSIDE[hook]) {
    if (file.test(stack)) warnOnce(name, () => listedBeforeText(name, why));
  }
}

/** The files of the callers, one a line: formatting whole frames maps each through source maps, which costs more than the check. */
function callerFiles(): string {
  const { stackTraceLimit, prepareStackTrace } = Error;
  Error.stackTraceLimit = 64;
  Error.prepareStackTrace = (_error, frames) => frames.map((frame) => frame.getFileName() ?? "").join("\n");
  try {
    return String(new Error().stack ?? "");
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
    Error.prepareStackTrace = prepareStackTrace;
  }
}

const warned = new Set<string>();

/** Prints `text` once per process for `key`; a warning on a sign only where the callers could not be seen. */
export function warnOnce(key: string, text: () => string, onSign = false): void {
  if (warned.has(key) || (onSign && callersVisible)) return;
  warned.add(key);
  console.warn(text());
}

/** For tests: every warning may be printed again. */
export function resetCompositionWarnings(): void {
  warned.clear();
  callersVisible = false;
}
