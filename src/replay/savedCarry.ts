import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph";
import type { BaseMessage } from "@langchain/core/messages";
import { CARRY_KEY, mergeWrites, type Carried, type GuardState } from "../hooks/carry.js";

/**
 * The state the guards judged at a saved checkpoint: its messages and what they carried. The
 * carried channel is a delta channel (hooks/carry.ts): a checkpoint holds its value only every
 * so often, so it is rebuilt as LangGraph rebuilds it, from the last stored value and the
 * writes after it.
 */
export async function savedGuardState(saver: BaseCheckpointSaver, tuple: CheckpointTuple): Promise<GuardState> {
  const messages = tuple.checkpoint.channel_values.messages as BaseMessage[];
  const history = (await saver.getDeltaChannelHistory({ config: tuple.config, channels: [CARRY_KEY] }))[CARRY_KEY];
  if (!history) return { messages };
  const writes = history.writes.map(([, , value]) => value as Carried[]);
  return { messages, [CARRY_KEY]: mergeWrites(seedOf(history.seed), writes) };
}

/** A stored value of the channel: a delta snapshot's value, a value saved before it was a delta channel, or nothing. */
function seedOf(seed: unknown): Carried[] {
  const value = (seed as { lg_name?: unknown } | undefined)?.lg_name === "DeltaSnapshot" ? (seed as { value: unknown }).value : seed;
  return Array.isArray(value) ? (value as Carried[]) : [];
}
