import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { getConfig, type Command } from "@langchain/langgraph";
import { isSummary } from "../core/messages.js";
import type { MaybePromise } from "../core/maybePromise.js";
import type { ModelHandler, ModelRequestLike } from "./batchGuard.js";
import {
  CARRY_KEY,
  historyOf,
  recordRemoved,
  removalKnown,
  summaryIndex,
  summaryKey,
  type GuardState,
} from "./carry.js";

/**
 * What a summary removed, found between the summary and the first tool call after it, which
 * writes it into the carry channel (carry.ts). Two sources, cheapest first:
 * - the messages this process saw before the summary (the summary keeps some of them as they were);
 * - else (the thread moved to another worker, or resumed) the checkpoint the summary was made from.
 * Where neither has it (no checkpointer, and another process), the guards judge what the state holds.
 */

// Each message this process saw, and its log: a thread's history as the guards judged it. Keyed by
// message instance: a log holds no copies, and goes when the messages do. Where in its log a
// message is, is looked up only when a summary needs it.
const seenIn = new WeakMap<object, BaseMessage[]>();

/**
 * The history to judge for `state`, with what a new summary removed found first. Also notes the
 * messages seen for the first time (O(new messages)), for the next summary to find them.
 */
export function readyHistory(state: GuardState): MaybePromise<readonly BaseMessage[]> {
  const { messages } = state;
  const summaryAt = summaryIndex(messages);
  if (summaryAt < 0) {
    // Nearly every step: no summary, the messages are the history.
    noteSeen(messages);
    return messages;
  }
  if (!removalKnown(state, summaryAt)) {
    const summary = messages[summaryAt]!;
    const seen = removedBySeen(messages, summaryAt);
    if (!seen) {
      return removedByCheckpoints(summaryKey(messages, summaryAt), messages).then((removed) => {
        if (removed) recordRemoved(summary, removed);
        return seenHistory(state);
      });
    }
    recordRemoved(summary, seen);
  }
  return seenHistory(state);
}

/** A model call made once its history is ready (`readyHistory`). */
export type ModelCallWithHistory = <R extends ModelRequestLike>(
  request: R,
  handler: ModelHandler<R>,
  history: readonly BaseMessage[],
) => Promise<AIMessage | Command>;

/**
 * The `wrapModelCall` that hands `call` the history to judge: at once on nearly every step, with
 * no closure or promise of its own per call (every guard that builds its model hook here shares it).
 */
export function withReadyHistory(call: ModelCallWithHistory) {
  return <R extends ModelRequestLike>(request: R, handler: ModelHandler<R>): Promise<AIMessage | Command> => {
    try {
      // The state as it is (a copy of it would cost every step), unless it lacks messages.
      const state = request.state;
      const history = readyHistory(state?.messages ? (state as GuardState) : { ...state, messages: [] });
      if (history instanceof Promise) return history.then((ready) => call(request, handler, ready));
      return call(request, handler, history);
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

/** The history to judge, noted as seen. */
function seenHistory(state: GuardState): readonly BaseMessage[] {
  const history = historyOf(state);
  noteSeen(history);
  return history;
}

/** Appends what `history` holds beyond what was seen, to the log its seen part belongs to. */
export function noteSeen(history: readonly BaseMessage[]): void {
  let i = history.length - 1;
  let known: BaseMessage[] | undefined;
  while (i >= 0 && (known = seenIn.get(history[i]!)) === undefined) i--;
  if (i === history.length - 1) return;
  let log: BaseMessage[] = [];
  if (known) {
    const last = history[i]!;
    // A history that branched off (time travel, a fork) starts its own log.
    log = known[known.length - 1] === last ? known : known.slice(0, known.lastIndexOf(last) + 1);
  }
  for (let j = i + 1; j < history.length; j++) {
    const message = history[j]!;
    if (typeof message !== "object" || message === null) continue;
    seenIn.set(message, log);
    log.push(message);
  }
}

/** What the summary at `summaryAt` removed, from the log of the first kept message this process saw. */
function removedBySeen(messages: readonly BaseMessage[], summaryAt: number): BaseMessage[] | undefined {
  for (let i = summaryAt + 1; i < messages.length; i++) {
    const log = seenIn.get(messages[i]!);
    if (log) return before(log.slice(0, log.lastIndexOf(messages[i]!)), messages);
  }
  return undefined;
}

/** `history` without what `state` still holds and without summaries: what a summary took out. */
function before(history: readonly BaseMessage[], state: readonly BaseMessage[]): BaseMessage[] {
  // A summary takes the id of the first message it replaced: that message is not kept.
  const kept = new Set<unknown>();
  for (const m of state) if (!isSummary(m)) kept.add(keyOf(m));
  return history.filter((m) => !kept.has(keyOf(m)) && !isSummary(m));
}

function keyOf(message: BaseMessage): unknown {
  return typeof message.id === "string" && message.id !== "" ? message.id : message;
}

/** The most checkpoints walked back to find the one a summary was made from. */
const MAX_CHECKPOINTS_BACK = 64;

interface CheckpointReader {
  getTuple(
    config: unknown,
  ): Promise<{ checkpoint: { channel_values: Record<string, unknown> }; parentConfig?: unknown } | undefined>;
}

/** What `summary` removed, from the last checkpoint of the running graph that does not hold it yet. */
async function removedByCheckpoints(
  summary: string,
  messages: readonly BaseMessage[],
): Promise<BaseMessage[] | undefined> {
  const configurable = runningConfigurable();
  const saver = configurable?.__pregel_checkpointer as CheckpointReader | undefined;
  if (!configurable || typeof saver?.getTuple !== "function") return undefined;
  // The graph's namespace is the task's without its last part; the map says which checkpoint the step runs on.
  const taskNamespace = typeof configurable.checkpoint_ns === "string" ? configurable.checkpoint_ns : "";
  const namespace = taskNamespace.split("|").slice(0, -1).join("|");
  const checkpointId = (configurable.checkpoint_map as Record<string, string> | undefined)?.[namespace];
  if (checkpointId === undefined) return undefined;
  const thread = { thread_id: configurable.thread_id, checkpoint_ns: namespace };
  try {
    const history =
      (await historyBefore(saver, { configurable: { ...thread, checkpoint_id: checkpointId } }, summary)) ??
      (await ancestorHistory(saver, { configurable: thread }, summary, messages));
    return history && before(history, messages);
  } catch {
    return undefined; // a saver that cannot read back: judge what the state holds
  }
}

/**
 * The history before the summary from the thread's newest saved checkpoint. LangGraph saves a
 * step's checkpoint while the next step already runs (durability "async", its default), so the
 * step's own may not be saved yet: right after a resume, several are still queued. The newest
 * saved one is an ancestor when it holds the first message the summary kept (a history that
 * branched off later shares everything before it).
 */
async function ancestorHistory(
  saver: CheckpointReader,
  config: unknown,
  summary: string,
  messages: readonly BaseMessage[],
): Promise<readonly BaseMessage[] | undefined> {
  const history = await historyBefore(saver, config, summary);
  const firstKept = messages[summaryIndex(messages) + 1];
  if (!history || firstKept === undefined) return undefined;
  const key = keyOf(firstKept);
  return history.some((m) => keyOf(m) === key) ? history : undefined;
}

function runningConfigurable(): Record<string, unknown> | undefined {
  try {
    return getConfig()?.configurable;
  } catch {
    return undefined; // outside a graph
  }
}

/** The history of the newest checkpoint from `config` back that does not hold the summary `summary` (its key). */
async function historyBefore(
  saver: CheckpointReader,
  config: unknown,
  summary: string,
): Promise<readonly BaseMessage[] | undefined> {
  let at = config;
  for (let hops = 0; at !== undefined && hops < MAX_CHECKPOINTS_BACK; hops++) {
    const tuple = await saver.getTuple(at);
    if (!tuple) return undefined;
    const values = tuple.checkpoint.channel_values as unknown as GuardState;
    const messages = values.messages;
    if (
      Array.isArray(messages) &&
      !(summaryIndex(messages) >= 0 && summaryKey(messages, summaryIndex(messages)) === summary)
    ) {
      return checkpointHistory(saver, values, tuple.parentConfig);
    }
    at = tuple.parentConfig;
  }
  return undefined;
}

/**
 * The history the guards judged at a checkpoint (`values`, whose parent is `parent`): its
 * messages, with what its own summary removed from the carry or, not carried yet, from the
 * checkpoints before it. Replay reads a saved thread's history this way.
 */
export async function checkpointHistory(
  saver: CheckpointReader,
  values: GuardState,
  parent: unknown,
): Promise<readonly BaseMessage[]> {
  const state: GuardState = {
    messages: values.messages,
    [CARRY_KEY]: Array.isArray(values[CARRY_KEY]) ? values[CARRY_KEY] : [],
  };
  const { messages } = state;
  const summaryAt = summaryIndex(messages);
  const summary = messages[summaryAt];
  if (summary !== undefined && !removalKnown(state, summaryAt) && parent !== undefined) {
    const earlier = await historyBefore(saver, parent, summaryKey(messages, summaryAt));
    if (earlier) recordRemoved(summary, before(earlier, messages));
  }
  return historyOf(state);
}
