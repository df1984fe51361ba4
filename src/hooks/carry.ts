import { Command, getCurrentTaskInput, ReducedValue, StateSchema } from "@langchain/langgraph";
import { z } from "zod";
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { isSummary, messageKind, pendingToolCalls } from "../core/messages.js";

/**
 * What the guards remember across a summary (docs/architecture.md, "Two kinds of guard"). LangChain's
 * `summarizationMiddleware` replaces old messages by one summary message, and every judgement
 * derived from them (safe mode, the kill switch, loop chains, token totals, repair counts) would
 * go with them. So the guards carry the history they judge in a private state channel,
 * checkpointed like the messages and written from their `wrapToolCall`: after a summary they
 * judge the carried history followed by what the summary kept, which gives the same decisions
 * as the history would have without the summary, in any worker and in replay.
 *
 * Carried messages are message instances, not plain dicts: LangGraph copies every plain object of
 * the state into each tool task, and instances pass through as they are. Human and AI messages
 * are the state's own objects (keyed by id); a tool's answer is carried as a copy whose id is
 * the asking AIMessage's id with the call id, since call ids repeat across turns.
 */
export const CARRY_KEY = "_harnessKitCarry";

/** A carried message: its id is the key it is carried under. */
export type Carried = BaseMessage & { id: string };

/** Adds or replaces carried messages by key, keeping history order: replays and retries write the same keys again. */
export function mergeCarried(current: Carried[], update: Carried[]): Carried[] {
  if (update.length === 0) return current;
  const next = [...current];
  // The index of `current` serves `next` too: `next` only replaces entries in place or appends.
  let at = positionsOf(current);
  for (const entry of update) {
    let index = indexIn(next, entry.id, at);
    if (index === undefined && at.has(entry.id)) {
      at = indexEntries(next); // the shared index saw another version: start afresh
      index = indexIn(next, entry.id, at);
    }
    if (index !== undefined) next[index] = entry;
    else {
      at.set(entry.id, next.length);
      next.push(entry);
    }
  }
  positionCache.set(next, at);
  return next;
}

// Checked as a whole, not entry by entry: LangChain parses each middleware's state keys before
// every model call, and a per-entry schema would cost O(history) per middleware per step.
const carried = z.custom<Carried[]>((value) => Array.isArray(value));

/** The state channel every guard that judges history declares (same key and reducer: they share it). */
export const carryStateSchema = new StateSchema({
  [CARRY_KEY]: new ReducedValue(carried.default(() => []), { inputSchema: carried, reducer: mergeCarried }),
});

/** The part of a request's state the guards read. */
export interface GuardState {
  messages: readonly BaseMessage[];
  [CARRY_KEY]?: readonly Carried[];
}

/**
 * Index of carried keys, shared by the successive versions of the channel (each version extends
 * the last), so a step costs O(what it adds), not O(history). Every lookup is checked against the
 * version at hand, so an index that got ahead of it never gives a wrong answer.
 */
const positionCache = new WeakMap<readonly Carried[], Map<string, number>>();

function positionsOf(entries: readonly Carried[]): Map<string, number> {
  return positionCache.get(entries) ?? indexEntries(entries);
}

function indexEntries(entries: readonly Carried[]): Map<string, number> {
  const at = new Map(entries.map((entry, index) => [entry.id, index]));
  positionCache.set(entries, at);
  return at;
}

/** Where `key` is carried in `entries`, if it is. */
function indexIn(entries: readonly Carried[], key: string, at = positionsOf(entries)): number | undefined {
  const index = at.get(key);
  return index !== undefined && entries[index]?.id === key ? index : undefined;
}

/**
 * The history the guards judge: the messages, or after a summary the carried messages it
 * removed followed by the messages it kept (the summary itself is left out).
 */
export function historyOf(state: GuardState): readonly BaseMessage[] {
  const { messages } = state;
  const summaryAt = isSummary(messages[0]) ? 0 : isSummary(messages[1]) ? 1 : -1;
  if (summaryAt < 0) return messages;
  const entries = carryOf(state) ?? [];
  const kept = messages.slice(summaryAt + 1);
  const firstKept = kept.length > 0 ? keyOf(kept[0]!, summaryAt + 1) : undefined;
  const removedEnd = firstKept === undefined ? entries.length : lastIndexOfKey(entries, firstKept);
  return [...messages.slice(0, summaryAt), ...entries.slice(0, removedEnd), ...kept];
}

/**
 * The carried history: in the request's state where the middleware declares the channel, else
 * in the running graph's state (LangChain hands a middleware only the state keys it declares);
 * undefined where no middleware of the graph declares it.
 */
function carryOf(state: GuardState): readonly Carried[] | undefined {
  if (Array.isArray(state[CARRY_KEY])) return state[CARRY_KEY];
  try {
    const carried = (getCurrentTaskInput() as GuardState | undefined)?.[CARRY_KEY];
    return Array.isArray(carried) ? carried : undefined;
  } catch {
    return undefined; // outside a graph
  }
}

/**
 * `result` as a Command that also carries what the guards will need once a summary removes it:
 * the answer to this call, and in one task of the batch (`carrierOf`) the messages of the state
 * not carried yet (every task of a batch sees the same state: one carries them for all). Each
 * entry is written once: an answer an inner guard carried keeps its entries, its carried answer
 * replaced should a guard in between have rewritten the answer. Outside a graph that declares
 * the channel (a unit call) the result comes back as it is.
 */
export function withCarry<T extends ToolMessage | Command>(state: GuardState, callId: string, result: T): T | Command {
  const answer = answerIn(result, callId);
  if (!answer) return result;
  const inner = carriedBy(result);
  if (inner) return recarried(result as Command, inner, answer);
  const carried = carryOf(state);
  if (!carried) return result;
  const asking = lastAi(state.messages);
  const entries = carrierOf(state.messages) === callId ? uncarried(state.messages, carried) : [];
  // The answer goes last: `recarried` finds it there.
  entries.push(carriedAnswer(answer, toolKey(asking ? keyOf(asking.message, asking.index) : "", callId)));
  if (ToolMessage.isInstance(result)) return new Command({ update: { messages: [result], [CARRY_KEY]: entries } });
  const command = result as Command;
  return new Command({ ...command, update: { ...(command.update as Record<string, unknown>), [CARRY_KEY]: entries } });
}

/** The entries a wrapToolCall result already carries (an inner guard carried it), if any. */
function carriedBy(result: ToolMessage | Command): Carried[] | undefined {
  if (ToolMessage.isInstance(result)) return undefined;
  const update = (result as Command).update as Record<string, unknown> | undefined;
  const entries = update !== null && typeof update === "object" && !Array.isArray(update) ? update[CARRY_KEY] : undefined;
  return Array.isArray(entries) && entries.length > 0 ? (entries as Carried[]) : undefined;
}

/** `command` whose carried answer (the last entry) is `answer` as it now stands. */
function recarried(command: Command, entries: Carried[], answer: ToolMessage): Command {
  const last = entries[entries.length - 1]!;
  const current = carriedAnswer(answer, last.id);
  if (current === last) return command;
  const update = { ...(command.update as Record<string, unknown>), [CARRY_KEY]: [...entries.slice(0, -1), current] };
  return new Command({ ...command, update });
}

/**
 * The call whose task carries the batch's messages: the first one still unanswered when the
 * batch starts (a call a node hook answered, such as a human's rejection, never reaches the tools).
 */
function carrierOf(messages: readonly BaseMessage[]): string | undefined {
  return pendingToolCalls(messages)[0]?.id;
}

/** The ToolMessage answering `callId` in a wrapToolCall result, if it has one. */
function answerIn(result: ToolMessage | Command, callId: string): ToolMessage | undefined {
  if (ToolMessage.isInstance(result)) return result;
  const update = (result as Command).update;
  if (update === null || typeof update !== "object" || Array.isArray(update)) return undefined;
  const messages = (update as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return undefined;
  return messages.find((m): m is ToolMessage => ToolMessage.isInstance(m) && m.tool_call_id === callId);
}

/**
 * Human and AI messages of the state after the last one carried, in order (tool answers are
 * carried when they are made; the summary is not history). Walks back only over what is new;
 * should the last carried message be gone, it carries what the state has again, which the
 * reducer merges by key.
 */
function uncarried(messages: readonly BaseMessage[], carried: readonly Carried[]): Carried[] {
  const last = lastCarriedMessage(carried);
  const out: Carried[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (messageKind(message) === "tool" || isSummary(message)) continue;
    const key = keyOf(message, i);
    if (key === last) break;
    out.push(message.id === key ? (message as Carried) : withId(message, key));
  }
  return out.reverse();
}

/** The key of the last carried human or AI message. */
function lastCarriedMessage(entries: readonly Carried[]): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (messageKind(entries[i]) !== "tool") return entries[i]!.id;
  return undefined;
}

/** Position of `key` among the carried messages, searched from the end (where kept messages are); the length if absent. */
function lastIndexOfKey(entries: readonly Carried[], key: string): number {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.id === key) return i;
  return entries.length;
}

/** The carry key of a human or AI message: its id (the messages reducer gives every message one). */
function keyOf(message: BaseMessage, index: number): string {
  return typeof message.id === "string" && message.id !== "" ? message.id : `${messageKind(message)}#${index}`;
}

/** The AIMessage whose calls are running (the last one in the state) and its position. */
function lastAi(messages: readonly BaseMessage[]): { message: BaseMessage; index: number } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messageKind(messages[i]) === "ai") return { message: messages[i]!, index: i };
  return undefined;
}

function toolKey(aiId: string, callId: string): string {
  return `tool:${aiId}:${callId}`;
}

// The guards of a stack pass the same answer on their way out: copy it once.
const carriedAnswers = new WeakMap<ToolMessage, Carried>();

/** A tool's answer as carried: a copy under the carry key. */
function carriedAnswer(answer: ToolMessage, key: string): Carried {
  let carried = carriedAnswers.get(answer);
  if (carried?.id !== key) {
    carried = withId(answer, key);
    carriedAnswers.set(answer, carried);
  }
  return carried;
}

/**
 * Declares the channel once for a whole stack, on a middleware without `wrapModelCall` where
 * there is one: LangChain builds and runs a zod parser of a middleware's state schema before
 * each of its `wrapModelCall`s, tens of microseconds a step for every declaring guard. Every
 * guard reads the channel from the graph's state.
 */
export function declareCarryOnce<M extends object>(middleware: M[]): M[] {
  type Host = { stateSchema?: unknown; wrapModelCall?: unknown };
  const hosts = middleware as Host[];
  const host = hosts.find((m) => m.stateSchema === undefined && m.wrapModelCall === undefined) ?? hosts.find((m) => m.stateSchema === carryStateSchema);
  for (const m of hosts) if (m.stateSchema === carryStateSchema) m.stateSchema = undefined;
  if (host) host.stateSchema = carryStateSchema;
  return middleware;
}

/** A copy of `message` whose id is `key` (a message without an id, or a tool answer). */
function withId(message: BaseMessage, key: string): Carried {
  const Kind = message.constructor as new (fields: Record<string, unknown>) => BaseMessage;
  return new Kind({ ...(message as unknown as { lc_kwargs: Record<string, unknown> }).lc_kwargs, id: key }) as Carried;
}
