import { Command, getCurrentTaskInput, ReducedValue, StateSchema } from "@langchain/langgraph";
import { z } from "zod";
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { isSummary, messageKind, pendingToolCalls } from "../core/messages.js";

/**
 * What the guards remember across a summary (docs/architecture.md, "Two kinds of guard"). LangChain's
 * `summarizationMiddleware` replaces old messages by one summary message, and every judgement
 * derived from them (safe mode, the kill switch, loop chains, token totals, repair counts) would
 * go with them. So the guards judge the history the summaries removed followed by what they kept,
 * which gives the same decisions as without the summaries, in any worker and in replay.
 *
 * Nothing is carried until a summary removes something: before that the messages are the history,
 * and a channel written at every step would double every checkpoint. After a summary, the first
 * tool call writes what it removed (found by summaryRemovals.ts) into a private channel, once:
 * `[...removed messages, the summary they lead to]`. Later summaries append what they removed.
 * Carried messages are message instances, not plain dicts: LangGraph copies every plain object of
 * the state into each tool task, and instances pass through as they are.
 */
export const CARRY_KEY = "_harnessKitCarry";

/** A carried message: its id is the key it is carried under. */
export type Carried = BaseMessage & { id: string };

/**
 * Merges a write into the carry: the removed messages not carried yet, then the newest summary.
 * Idempotent, so replays and retries may write the same update again. A carry of older versions
 * (a copy of every message, no summary at its end) gives way to the first write: that write was
 * made from the history it gave.
 */
export function mergeCarried(current: Carried[], update: Carried[]): Carried[] {
  if (update.length === 0) return current;
  const base = coveredSummary(current) ? current.slice(0, -1) : [];
  const known = new Set(base.map((m) => m.id));
  const added = update.slice(0, -1).filter((m) => !known.has(m.id) && known.add(m.id));
  return [...base, ...added, update[update.length - 1]!];
}

// Checked as a whole, not entry by entry: LangChain parses each middleware's state keys before
// every model call, and a per-entry schema would cost O(history) per middleware per step.
const carried = z.custom<Carried[]>((value) => Array.isArray(value));

/** The state channel every guard that judges history declares (same key and reducer: they share it). */
export const carryStateSchema = new StateSchema({
  [CARRY_KEY]: new ReducedValue(
    carried.default(() => []),
    { inputSchema: carried, reducer: mergeCarried },
  ),
});

/** The part of a request's state the guards read. */
export interface GuardState {
  messages: readonly BaseMessage[];
  [CARRY_KEY]?: readonly Carried[];
}

/** Where the summary is in `messages` (first, or right after a system message), or -1. */
export function summaryIndex(messages: readonly BaseMessage[]): number {
  return isSummary(messages[0]) ? 0 : isSummary(messages[1]) ? 1 : -1;
}

/** The summary a carry ends with (the one whose removals it holds), if any. */
function coveredSummary(entries: readonly Carried[] | undefined): Carried | undefined {
  const last = entries?.[entries.length - 1];
  return last !== undefined && isSummary(last) ? last : undefined;
}

/**
 * The key a summary is carried under. LangChain gives every summary the id of the first message
 * it replaced, the same one summary after summary: the first message it kept tells them apart.
 */
export function summaryKey(messages: readonly BaseMessage[], summaryAt: number): string {
  const first = messages[summaryAt + 1];
  return `summary:${messages[summaryAt]!.id ?? ""}>${first === undefined ? "" : keyOf(first, summaryAt + 1)}`;
}

/** Whether `entries` already hold what the summary at `summaryAt` removed. */
function carries(
  entries: readonly Carried[] | undefined,
  messages: readonly BaseMessage[],
  summaryAt: number,
): boolean {
  return coveredSummary(entries)?.id === summaryKey(messages, summaryAt);
}

// What summaries removed, found before the channel holds it (summaryRemovals.ts): keyed by the summary message.
const recovered = new WeakMap<object, readonly BaseMessage[]>();

/** Records what `summary` removed (every message of the history before what it kept, in order). */
export function recordRemoved(summary: BaseMessage, removed: readonly BaseMessage[]): void {
  recovered.set(summary, removed);
}

/** Whether what the summary at `summaryAt` removed is known: carried, or recovered in this process. */
export function removalKnown(state: GuardState, summaryAt: number): boolean {
  return recovered.has(state.messages[summaryAt]!) || carries(carryOf(state), state.messages, summaryAt);
}

/**
 * The history the guards judge: the messages, or after a summary what the summaries removed
 * followed by the messages kept (the summary itself is left out). Call `readyHistory`
 * (summaryRemovals.ts) first where a summary may be new: it finds what the summary removed.
 */
export function historyOf(state: GuardState): readonly BaseMessage[] {
  const { messages } = state;
  const summaryAt = summaryIndex(messages);
  if (summaryAt < 0) return messages;
  const summary = messages[summaryAt]!;
  const entries = carryOf(state) ?? [];
  const known = recovered.get(summary);
  // Every guard of a step asks for the same state's history: build it once per state and carry.
  const cached = histories.get(messages);
  if (cached && cached.entries === entries && cached.known === known) return cached.history;
  const kept = messages.slice(summaryAt + 1);
  const removed =
    known ?? (coveredSummary(entries) ? entries.slice(0, -1) : legacyRemoved(entries, kept[0], summaryAt));
  const history = [...messages.slice(0, summaryAt), ...removed, ...kept];
  histories.set(messages, { entries, known, history });
  return history;
}

const histories = new WeakMap<
  readonly BaseMessage[],
  { entries: readonly Carried[]; known: readonly BaseMessage[] | undefined; history: readonly BaseMessage[] }
>();

/** A carry of older versions held every message; what the summary removed ends where the kept ones start. */
function legacyRemoved(
  entries: readonly Carried[],
  first: BaseMessage | undefined,
  summaryAt: number,
): readonly BaseMessage[] {
  const firstKey = first === undefined ? undefined : keyOf(first, summaryAt + 1);
  let end = entries.length;
  if (firstKey !== undefined) for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.id === firstKey) end = i;
  return entries.slice(0, end);
}

/**
 * The carried history: in the request's state where the middleware declares the channel, else
 * in the running graph's state (LangChain hands a middleware only the state keys it declares);
 * undefined where no middleware of the graph declares it.
 */
export function carryOf(state: GuardState): readonly Carried[] | undefined {
  if (Array.isArray(state[CARRY_KEY])) return state[CARRY_KEY];
  try {
    const carried = (getCurrentTaskInput() as GuardState | undefined)?.[CARRY_KEY];
    return Array.isArray(carried) ? carried : undefined;
  } catch {
    return undefined; // outside a graph
  }
}

/**
 * Whether `withCarry` leaves every answer for `state` as it is (no summary in its messages), so a
 * caller can skip the promise step that would apply it.
 */
export function carriesNothing(state: GuardState | undefined): boolean {
  return Array.isArray(state?.messages) && summaryIndex(state.messages) < 0;
}

/**
 * `result`, as a Command that also writes what a summary removed when this is the first tool
 * batch since the summary and the channel does not hold it yet. One task of the batch writes
 * (`carrierOf`: every task sees the same state); an answer an inner guard already carried is
 * left as it is. Outside a graph that declares the channel the result comes back as it is.
 */
export function withCarry<T extends ToolMessage | Command>(state: GuardState, callId: string, result: T): T | Command {
  const { messages } = state;
  const summaryAt = summaryIndex(messages);
  if (summaryAt < 0) return result;
  const summary = messages[summaryAt]!;
  const removed = recovered.get(summary);
  const entries = carryOf(state);
  if (
    !removed ||
    !entries ||
    carries(entries, messages, summaryAt) ||
    carrierOf(messages) !== callId ||
    carriedBy(result)
  )
    return result;
  const known = new Set(coveredSummary(entries) ? entries.map((m) => m.id) : []);
  const update = [
    ...(removed as Carried[]).filter((m) => !known.has(m.id)),
    withId(summary, summaryKey(messages, summaryAt)),
  ];
  if (ToolMessage.isInstance(result)) return new Command({ update: { messages: [result], [CARRY_KEY]: update } });
  const command = result as Command;
  return new Command({ ...command, update: { ...(command.update as Record<string, unknown>), [CARRY_KEY]: update } });
}

/** Whether a wrapToolCall result already writes the carry (an inner guard carried it). */
function carriedBy(result: ToolMessage | Command): boolean {
  if (ToolMessage.isInstance(result)) return false;
  const update = (result as Command).update as Record<string, unknown> | undefined;
  const entries =
    update !== null && typeof update === "object" && !Array.isArray(update) ? update[CARRY_KEY] : undefined;
  return Array.isArray(entries) && entries.length > 0;
}

/**
 * The call whose task writes for the batch: the first one still unanswered when the batch
 * starts (a call a node hook answered, such as a human's rejection, never reaches the tools).
 */
function carrierOf(messages: readonly BaseMessage[]): string | undefined {
  return pendingToolCalls(messages)[0]?.id;
}

/** The key of a message: its id (the messages reducer gives every message one), else its kind and place. */
function keyOf(message: BaseMessage, index: number): string {
  return typeof message.id === "string" && message.id !== "" ? message.id : `${messageKind(message)}#${index}`;
}

/** A copy of `message` whose id is `key`. */
function withId(message: BaseMessage, key: string): Carried {
  const Kind = message.constructor as new (fields: Record<string, unknown>) => BaseMessage;
  return new Kind({ ...(message as unknown as { lc_kwargs: Record<string, unknown> }).lc_kwargs, id: key }) as Carried;
}
