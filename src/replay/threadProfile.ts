import type { BaseMessage } from "@langchain/core/messages";
import { isSummary, messageKind } from "../core/messages.js";
import { RunawayLedger } from "../guards/runaway/ledger.js";
import { DEFAULT_OBSERVATION_OPTIONS, observationsFor } from "../observe/shared.js";
import type { ObservationOptions } from "../observe/store.js";

/**
 * The figures of one thread that a fleet report (`eval --html`) draws and ranks, measured beside
 * its replay where the messages are (a replay worker sends back these, not the messages).
 */
export interface ThreadProfile {
  /** Tokens of the model calls that read only tool results that brought nothing new, over every run of the thread. */
  wastedTokens: number;
  /** The highest runaway factor any run of the thread reached (the runaway guard's measure, whether or not it is replayed). */
  peakRunawayFactor: number;
  /** Each answered call's result size in characters, in the order the results arrived. */
  resultSizes: number[];
  /** Each answered call's earlier calls with the same tool and arguments in the thread. */
  repeats: number[];
}

/** `minInputTokens`: the runaway guard's floor for a run's input, so the factor is the one it would compute. */
export async function profileThread(
  messages: readonly BaseMessage[],
  observation: ObservationOptions,
  minInputTokens: number,
): Promise<ThreadProfile> {
  // The guards' own store of this history when the options are theirs: replay has filled it already.
  const shared = Object.keys(observation).length === 0 ? DEFAULT_OBSERVATION_OPTIONS : observation;
  const { observations } = (await observationsFor(messages, shared)).store;
  // The ledger measures the run its history ends with: each run is measured as the history up to
  // the user message that starts the next one. Slices keep the same messages, so it goes on incrementally.
  const ledger = new RunawayLedger();
  let wastedTokens = 0;
  let peakRunawayFactor = 0;
  const measure = (upTo: number) => {
    const waste = ledger.update(messages.slice(0, upTo)).measureWaste(minInputTokens);
    wastedTokens += waste.wastedTokens;
    peakRunawayFactor = Math.max(peakRunawayFactor, waste.peakFactor);
  };
  messages.forEach((message, index) => {
    if (index > 0 && messageKind(message) === "human" && !isSummary(message)) measure(index);
  });
  measure(messages.length);
  return {
    wastedTokens: Math.round(wastedTokens),
    peakRunawayFactor: Math.round(peakRunawayFactor * 100) / 100,
    resultSizes: observations.map((o) => o.resultSize),
    repeats: observations.map((o) => o.sameArgsRepeatCount),
  };
}
