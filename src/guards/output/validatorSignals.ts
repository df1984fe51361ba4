import { emitSignal, type Signal, type SignalHandler } from "../../core/signals.js";

/** What the validator's parts share: its name (on signals and marks), its observer, and observe-only. */
export interface ValidatorContext {
  guard: string;
  onSignal: SignalHandler | undefined;
  /** Judge and signal only; never change a result or refuse a call. */
  observeOnly: boolean;
}

/** Emits `signal` under the validator's name. */
export function signalFrom(context: ValidatorContext, signal: Omit<Signal, "guard">): Promise<void> {
  return emitSignal({ guard: context.guard, ...signal }, context.onSignal);
}
