// Three ways to read harness-kit's signals from a run: `streamEvents`, a LangChain callback
// handler, and LangSmith traces. `npx tsx examples/reading-signals.ts` runs all three against a
// scripted model (no API key; the LangSmith part only records when tracing is configured).
import { createAgent } from "langchain";
import { tool } from "@langchain/core/tools";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { HumanMessage } from "@langchain/core/messages";
import { traceable } from "langsmith/traceable";
import { z } from "zod";
import { recommendedGuards, SIGNAL_EVENT, type Signal } from "harness-kit";
import { ScriptedChatModel } from "harness-kit/testing";

/** An agent that polls a job whose answer never changes, so the loop guards act. */
export function pollingAgent(onSignal?: (signal: Signal) => void) {
  const jobStatus = tool(async () => '{"state":"running"}', {
    name: "job_status",
    description: "Status of a job",
    schema: z.object({ id: z.number() }),
  });
  const poll = { toolCalls: [{ name: "job_status", args: { id: 7 } }] };
  const model = new ScriptedChatModel({ turns: [poll, poll, poll, poll, poll, { text: "still running" }] });
  return createAgent({ model, tools: [jobStatus], middleware: recommendedGuards({ onSignal }).agent });
}

const input = { messages: [new HumanMessage("Is job 7 done?")] };

/** Signals as they happen, from `streamEvents`. */
export async function signalsFromStreamEvents(): Promise<Signal[]> {
  const agent = pollingAgent();
  const signals: Signal[] = [];
  for await (const event of agent.streamEvents(input, { version: "v2" })) {
    if (event.event === "on_custom_event" && event.name === SIGNAL_EVENT) {
      const signal = event.data as Signal;
      signals.push(signal);
      console.log(`${signal.guard} ${signal.action} ${signal.code}`);
    }
  }
  return signals;
}

/** A callback handler that counts signals by guard, code and action (e.g. for a metrics client). */
export class SignalCounter extends BaseCallbackHandler {
  name = "harness-kit-signal-counter";
  readonly counts = new Map<string, number>();

  override handleCustomEvent(eventName: string, data: unknown) {
    if (eventName !== SIGNAL_EVENT) return;
    const { guard, code, action } = data as Signal;
    const key = `${guard}.${code}.${action}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
}

export async function signalsFromCallbackHandler(): Promise<Map<string, number>> {
  const counter = new SignalCounter();
  await pollingAgent().invoke(input, { callbacks: [counter] });
  return counter.counts;
}

/**
 * LangSmith: LangChain.js's tracer does not store custom events, so record each signal as a
 * small run of its own. Called inside the agent's run, it nests under the tool or model call
 * that the guard judged, named `harness_kit_signal`, with the signal as its inputs.
 */
export const traceSignal = traceable(async (signal: Signal) => ({ code: signal.code, action: signal.action }), {
  name: SIGNAL_EVENT,
  run_type: "tool",
});

export async function signalsInLangSmith(): Promise<void> {
  await pollingAgent((signal) => void traceSignal(signal)).invoke(input);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await signalsFromStreamEvents();
  console.log(Object.fromEntries(await signalsFromCallbackHandler()));
  await signalsInLangSmith();
}
