// Runaways to hold RunawayGuard to, shared by docs/evaluation.md (bench/eval-real.ts) and
// test/eval/runawayRealData.test.ts: the incident the guard exists for, rebuilt from its figures,
// and the labelled stuck episodes of ../shared/evaldata carried on as a runaway would.
import type { BaseMessage } from "@langchain/core/messages";
import { messageKind, toolCallIdOf, toolCallsOf } from "../src/core/messages.js";
import { simulateUsage } from "../src/replay/simulateUsage.js";
import { replayThread, type ReplayedDecision, type StackedGuard } from "../src/replay/replayThread.js";
import { RunawayGuardMiddleware, type RunawayGuardOptions } from "../src/guards/runaway/RunawayGuardMiddleware.js";
import { usageOf } from "../src/guards/runaway/ledger.js";

type Dict = Record<string, unknown>;

/** The incident: 5 inputs of about 30,000 tokens each, read over and over by one tool. */
export const INCIDENT = {
  inputs: 5,
  toolCalls: 111,
  modelCalls: 41,
  inputChars: 120_000,
  resultChars: 128,
  systemTokens: 2_000,
} as const;

/**
 * The incident's shape: a question over five long inputs (about 152,000 tokens of context), then
 * 41 model calls that ask for 111 calls of one tool, cycling through the five inputs in batches of
 * two and three, each answered with the same excerpt every time. With the provider's usage
 * simulated over a 2,000-token system prompt it consumes 6.5 M tokens: 42.8× its input, the
 * figures of the incident report.
 */
export function incidentThread(): Dict[] {
  const inputs = Array.from(
    { length: INCIDENT.inputs },
    (_, i) =>
      `Input ${i + 1}:\n${`line ${i + 1} of a long contract, clause and schedule. `.repeat(INCIDENT.inputChars / 48)}`,
  );
  const messages: Dict[] = [{ type: "human", content: `Reconcile these five inputs.\n\n${inputs.join("\n\n")}` }];
  let call = 0;
  for (let turn = 0; turn < INCIDENT.modelCalls; turn++) {
    const size = turn < INCIDENT.toolCalls - 2 * INCIDENT.modelCalls ? 3 : 2;
    const calls = Array.from({ length: size }, () => {
      const input = (call % INCIDENT.inputs) + 1;
      return { id: `incident-${call++}`, name: "read_input", args: { input, section: "totals" }, type: "tool_call" };
    });
    messages.push({ type: "ai", content: "Checking the totals again.", tool_calls: calls });
    for (const c of calls) {
      const input = (c.args as { input: number }).input;
      messages.push({
        type: "tool",
        tool_call_id: c.id,
        name: c.name,
        content: `Input ${input}, totals:\n${`row ${input}: 1,204.50 carried forward\n`.repeat(INCIDENT.resultChars / 32)}`,
      });
    }
  }
  messages.push({ type: "ai", content: "The totals do not reconcile." });
  return messages;
}

/** Tokens the thread's model calls consumed, by their `usage_metadata`. */
export function billedTokens(messages: readonly unknown[]): number {
  return messages.reduce<number>((sum, m) => sum + (messageKind(m) === "ai" ? (usageOf(m)?.total ?? 0) : 0), 0);
}

/**
 * A stuck episode carried on: the thread up to the result of the episode's last call, then
 * `repeats` more model calls asking for the same call again, answered with the episode's own
 * results in turn, as if nothing (no guard, no user) had stepped in.
 */
export function carryOn(
  messages: readonly BaseMessage[],
  episodeCalls: readonly string[],
  repeats: number,
): BaseMessage[] {
  const lastId = episodeCalls[episodeCalls.length - 1]!;
  const cut = messages.findIndex((m) => messageKind(m) === "tool" && toolCallIdOf(m) === lastId);
  if (cut < 0) throw new Error(`call ${lastId} has no result`);
  const results = episodeCalls.map(
    (id) => messages.find((m) => messageKind(m) === "tool" && toolCallIdOf(m) === id) as unknown as Dict,
  );
  const call = messages.flatMap((m) => toolCallsOf(m)).find((c) => c.id === lastId)!;
  const out: unknown[] = messages.slice(0, cut + 1);
  for (let k = 0; k < repeats; k++) {
    const id = `${lastId}-again-${k}`;
    out.push({ type: "ai", content: "", tool_calls: [{ id, name: call.name, args: call.args, type: "tool_call" }] });
    out.push({ type: "tool", tool_call_id: id, name: call.name, content: results[k % results.length]!.content });
  }
  return out as BaseMessage[];
}

/** RunawayGuard alone, as `harness-kit eval --config` replays it. */
export function runawayStack(options: RunawayGuardOptions = {}): StackedGuard[] {
  return [{ guard: new RunawayGuardMiddleware(options), observeOnly: false, exitBehavior: "end" }];
}

/** The decisions of a stack on a thread, with provider usage simulated over a `systemTokens` system prompt. */
export async function replayWithUsage(
  messages: readonly BaseMessage[],
  stack: readonly StackedGuard[],
  systemTokens: number,
): Promise<ReplayedDecision[]> {
  return (await replayThread(simulateUsage(messages, systemTokens), stack)).decisions;
}

/** Where a stop first lands: the call's position among the thread's calls (from 0) and tokens billed before it ran. */
export function firstStop(
  messages: readonly BaseMessage[],
  decisions: readonly ReplayedDecision[],
  systemTokens: number,
): { callIndex: number; tokens: number } | undefined {
  const stop = decisions.find((d) => d.action === "stop");
  if (!stop) return undefined;
  return {
    callIndex: stop.callIndex,
    tokens: billedTokens(simulateUsage(messages, systemTokens).slice(0, stop.messageIndex + 1)),
  };
}
