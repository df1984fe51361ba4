import type { HarnessMark } from "../core/marks.js";
import { contextShrinksIn, type ContextShrink } from "../guards/overflow/record.js";
import { messageKind, toolCallsOf } from "../core/messages.js";
import { loadHasher } from "../observe/hash.js";
import { buildObservations, fingerprintArgs } from "../observe/store.js";
import type { LoadedThread } from "./threads.js";
import { messagesToReplay, type ReplaySetup } from "./config.js";
import {
  replayThread,
  type ReplayedDecision,
  type ReplayResult,
  type ReplayStop,
  type UnreproducedAnswer,
} from "./replayThread.js";
import type { OrderEvidence } from "./stackOrder.js";
import { loadThreadSource, type ThreadSource } from "./sources.js";

/** One tool call of a thread: what the observation store recorded, and what the guards decided. */
export interface InspectRow {
  callIndex: number;
  toolCallId: string;
  tool: string;
  /** Index of the AI message that made the call. */
  messageIndex: number;
  argsFingerprint: string;
  /** Absent for a call no ToolMessage answers. */
  observation?: {
    sameArgsRepeatCount: number;
    newInformationDelta: number;
    status: "success" | "error";
    resultSize: number;
    /** Set when the tool did not run: something answered in its place (`answeredBy` when a guard). */
    notRun?: true;
    answeredBy?: HarnessMark;
  };
  /** Every guard's decision other than allow, outermost guard first; `shadowedBy` when an outer guard had answered the call. */
  decisions: Array<Pick<ReplayedDecision, "guard" | "action" | "reason" | "shadowedBy" | "afterStop">>;
}

export interface InspectReport {
  thread: string;
  source: string;
  messages: number;
  toolCalls: number;
  /** The guards replayed, outermost first. */
  guards: string[];
  /** Where their order comes from: the setup's, or the thread's recorded answers where they showed another. */
  orderSource: string;
  /** The recorded answers that moved a guard (absent when none did). */
  orderEvidence?: OrderEvidence[];
  /** Recorded answers of the replayed guards that the replay does not reproduce (absent when it reproduces them all). */
  unreproduced?: UnreproducedAnswer[];
  /** Where each run of the thread would have stopped, and what it spent after (absent when none would). */
  stops?: ReplayStop[];
  rows: InspectRow[];
  /** Requests the context-overflow guard shrank before sending (absent when none was). */
  contextShrinks?: ContextShrink[];
}

/** Loads one thread and inspects it; `thread` holds the messages judged (with simulated usage when the setup asks for it). */
export async function inspectSource(
  source: ThreadSource,
  setup: ReplaySetup,
): Promise<{ thread: LoadedThread; report: InspectReport }> {
  const loaded = await loadThreadSource(source);
  const thread = { ...loaded, messages: messagesToReplay(loaded.messages, setup) };
  return { thread, report: await inspectThread(thread, setup) };
}

/** The observation table of one thread, with every decision other than allow on the row of its call. */
export async function inspectThread(thread: LoadedThread, setup: ReplaySetup): Promise<InspectReport> {
  const [observations, replay, hash] = await Promise.all([
    buildObservations(thread.messages, setup.observation),
    replayThread(thread.messages, setup.stack),
    loadHasher(),
  ]);
  const byId = new Map(observations.map((o) => [o.toolCallId, o]));
  const rows: InspectRow[] = [];
  thread.messages.forEach((message, messageIndex) => {
    if (messageKind(message) !== "ai") return;
    for (const call of toolCallsOf(message)) {
      const o = byId.get(call.id);
      rows.push({
        callIndex: rows.length,
        toolCallId: call.id,
        tool: call.name,
        messageIndex,
        argsFingerprint: o?.argsFingerprint ?? fingerprintArgs(call.args, hash),
        ...(o
          ? {
              observation: {
                sameArgsRepeatCount: o.sameArgsRepeatCount,
                newInformationDelta: o.newInformationDelta,
                status: o.status,
                resultSize: o.resultSize,
                ...(o.ran ? {} : { notRun: true as const }),
                ...(o.answeredBy ? { answeredBy: o.answeredBy } : {}),
              },
            }
          : {}),
        decisions: [],
      });
    }
  });
  for (const { toolCallId, callIndex, guard, action, reason, shadowedBy, afterStop } of replay.decisions) {
    // A stop at a run's start that made no call is on no row: the stops list shows it.
    if (toolCallId === undefined) continue;
    rows[callIndex]?.decisions.push({
      guard,
      action,
      reason,
      ...(shadowedBy ? { shadowedBy } : {}),
      ...(afterStop ? { afterStop } : {}),
    });
  }
  const shrinks = contextShrinksIn(thread.messages);
  return {
    thread: thread.id,
    source: thread.source,
    messages: thread.messages.length,
    toolCalls: replay.toolCalls,
    guards: replay.order,
    orderSource: orderSourceOf(replay, setup),
    ...(replay.orderEvidence.length > 0 ? { orderEvidence: replay.orderEvidence } : {}),
    ...(replay.unreproduced.length > 0 ? { unreproduced: replay.unreproduced } : {}),
    ...(replay.stops.length > 0 ? { stops: replay.stops } : {}),
    rows,
    ...(shrinks.length > 0 ? { contextShrinks: shrinks } : {}),
  };
}

/** The order replayed, as the output names it. */
function orderSourceOf(replay: ReplayResult, setup: ReplaySetup): string {
  return replay.orderEvidence.length > 0
    ? `read from the thread's recorded answers, else ${setup.orderSource}`
    : setup.orderSource;
}
