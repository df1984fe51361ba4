import { dispatchCustomEvent } from "@langchain/core/callbacks/dispatch";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import type { SignalCode } from "./signalCodes.js";

export { SIGNAL_CODES, isSignalCode, type SignalCode } from "./signalCodes.js";

/** What a guard did, other than allow. */
export type GuardAction = "warn" | "directive" | "stop";

/**
 * Emitted for every decision other than "allow" (docs/architecture.md, contract 5). `code` is stable and
 * machine-readable (group and alert on it); `reason` is for people and may carry numbers.
 */
export interface Signal {
  guard: string;
  action: GuardAction;
  toolCallId?: string;
  tool?: string;
  code: SignalCode;
  reason: string;
  detail?: Record<string, unknown>;
}

export type SignalHandler = (signal: Signal) => void;

/** Name of the LangChain custom event that carries every signal. */
export const SIGNAL_EVENT = "harness_kit_signal";

/**
 * Hands a payload to the user's handler and to LangChain callbacks as custom event `name`.
 * Neither may break the run: a throwing handler is ignored, and outside a runnable context there
 * is no callback to reach.
 */
export async function emitEvent<T>(
  name: string,
  payload: T,
  handler: ((payload: T) => void) | undefined,
): Promise<void> {
  try {
    handler?.(payload);
  } catch {
    // a faulty observer must not change what the agent does
  }
  try {
    await dispatchCustomEvent(name, payload);
  } catch {
    // no parent run: nobody is listening
  }
}

/**
 * Whether anything would receive an event: the user's handler, or a LangChain callback of the
 * current run that takes custom events (`streamEvents`, a handler passed in `callbacks`). An
 * event nobody receives need not be built (the runaway guard's report reads the whole run).
 */
export function heard(handler: unknown): boolean {
  if (handler !== undefined) return true;
  const callbacks: unknown = AsyncLocalStorageProviderSingleton.getRunnableConfig()?.callbacks;
  const handlers = Array.isArray(callbacks) ? callbacks : (callbacks as { handlers?: unknown[] } | undefined)?.handlers;
  return handlers?.some(takesCustomEvents) === true;
}

function takesCustomEvents(handler: unknown): boolean {
  const { handleCustomEvent, ignoreCustomEvent } = handler as {
    handleCustomEvent?: unknown;
    ignoreCustomEvent?: unknown;
  };
  return typeof handleCustomEvent === "function" && ignoreCustomEvent !== true;
}

/** A signal's `detail`, saying so when the guard only observed (it changed nothing). */
export function observedDetail(
  detail: Record<string, unknown> | undefined,
  observeOnly: boolean,
): Record<string, unknown> | undefined {
  return observeOnly ? { ...detail, observeOnly: true } : detail;
}

export function emitSignal(signal: Signal, onSignal: SignalHandler | undefined): Promise<void> {
  return emitEvent(SIGNAL_EVENT, signal, onSignal);
}
