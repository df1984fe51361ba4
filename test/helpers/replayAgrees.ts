import type { BaseMessage } from "@langchain/core/messages";
import type { AgentMiddleware } from "langchain";
import type { Signal } from "../../src/core/signals.js";
import { replayThread, type ReplayGuard, type ReplayResult } from "../../src/replay/replayThread.js";
import { stackMembers } from "./stackMembers.js";

const LOOP_GUARDS = new Set(["RunawayGuardMiddleware", "ProgressAwareLoopGuardMiddleware", "LoopGuardMiddleware"]);

/**
 * The thread replayed through the loop guards of `middleware` (those composed into one
 * included), which `harness-kit eval` replays, beside what those guards signalled live: each
 * decision the stack acted on and each live signal as `guard:action:code:call`, in order, and
 * the names of the guards replayed.
 */
export async function replayedBesideLive(
  messages: readonly BaseMessage[],
  middleware: readonly AgentMiddleware[],
  signals: readonly Signal[],
): Promise<{ guards: string[]; replayed: ReplayResult; decided: string[]; live: string[] }> {
  const guards = stackMembers(middleware).filter((m): m is AgentMiddleware & ReplayGuard => LOOP_GUARDS.has(m.name));
  const replayed = await replayThread(
    messages,
    guards.map((guard) => ({ guard, observeOnly: false, exitBehavior: "end" as const })),
  );
  const names = new Set(guards.map((g) => g.name));
  const live = signals
    .filter((s) => names.has(s.guard) && s.code !== "guard_failed")
    .map((s) => `${s.guard}:${s.action}:${s.code}:${s.toolCallId}`);
  const decided = replayed.decisions
    .filter((d) => !d.shadowedBy)
    .map((d) => `${d.guard}:${d.action}:${d.code}:${d.toolCallId}`);
  return { guards: [...names], replayed, decided, live };
}
