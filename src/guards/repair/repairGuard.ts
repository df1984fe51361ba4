import { emitSignal, type Signal, type SignalHandler } from "../../core/signals.js";

/** Who the repair guard is, as both its jobs (reviewResponse.ts, readableToolCall.ts) see it. */
export interface RepairGuard {
  guard: string;
  /** Signals only (with `detail.observeOnly`): nothing is repaired, answered or replaced. */
  observeOnly: boolean;
  onSignal: SignalHandler | undefined;
}

export function signalRepair(guard: RepairGuard, signal: Omit<Signal, "guard">): Promise<void> {
  return emitSignal({ guard: guard.guard, ...signal }, guard.onSignal);
}
