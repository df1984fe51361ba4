import { forgetJudgements } from "../guards/progress/noProgress.js";
import { forgetLedger } from "../guards/runaway/ledger.js";
import { forgetObservations } from "../observe/shared.js";
import type { BaseMessage } from "@langchain/core/messages";
import { replayThread, type ReplayResult, type StackedGuard } from "./replayThread.js";

/**
 * Drops every cache the guards keep for a thread a replay is done with: its observation stores, what
 * the progress guard concluded from them, and the runaway guard's ledger. They are keyed weakly by
 * the thread's first message and would go with it anyway, but only at a full collection: until
 * then each young-generation collection copies them and the thread's messages they hold, and
 * eval and --suggest replay hundreds of threads between full collections (bench/README.md, issue 27).
 */
export function forgetThread(messages: readonly unknown[]): void {
  const head = messages[0];
  for (const store of forgetObservations(head)) forgetJudgements(store.observations);
  forgetLedger(head);
}

/** `replayThread` for a caller that needs nothing of the thread afterwards: its caches go at once. */
export async function replayAndForget(
  messages: readonly BaseMessage[],
  stack: readonly StackedGuard[],
): Promise<ReplayResult> {
  try {
    return await replayThread(messages, stack);
  } finally {
    forgetThread(messages);
  }
}
