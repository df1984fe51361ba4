import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { createDeepAgent } from "deepagents";
import type { Signal } from "../../src/core/signals.js";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { replayedBesideLive } from "../helpers/replayAgrees.js";
import {
  keyOf,
  loggedTools,
  playTwoTurns,
  quietRefusers,
  read,
  refusersArb,
  runArb,
  runawayArb,
  refusingMiddleware,
  search,
  write,
  type Refusers,
} from "../helpers/refusers.js";

/**
 * "A refused call did not run" (docs/architecture.md, "Judge as one") as a property: whoever
 * answered a call without running it (a reviewer middleware, LangChain's call limit or
 * human-in-the-loop, one of our guards), listed before or after the stack, over two user turns
 * of one thread, through createAgent or createDeepAgent, no loop guard ever
 * counts it. Every repeat a loop guard acts on is backed by earlier calls whose tool really ran
 * (the tools log what they ran), and replay gives the decisions made live.
 */

type Runaway = typeof runawayArb extends fc.Arbitrary<infer R> ? R : never;

interface Placed {
  id: string;
  key: string;
  name: string;
  /** Index of the user turn (HumanMessages before it). */
  turn: number;
  /** Position among all calls of the thread. */
  at: number;
  /** Calls before it in its own AIMessage. */
  siblingsBefore: Placed[];
}

/** Every tool call of the thread in order, where it sits. */
function placedCalls(messages: readonly BaseMessage[]): Placed[] {
  const placed: Placed[] = [];
  let turn = 0;
  for (const message of messages) {
    if (HumanMessage.isInstance(message)) turn++;
    if (!AIMessage.isInstance(message)) continue;
    const batch: Placed[] = [];
    for (const call of message.tool_calls ?? []) {
      const entry = {
        id: call.id!,
        key: keyOf(call.name, call.args),
        name: call.name,
        turn,
        at: placed.length,
        siblingsBefore: [...batch],
      };
      batch.push(entry);
      placed.push(entry);
    }
  }
  return placed;
}

/**
 * The most the identical-call guard may count for `call`: the identical calls that ran right
 * before it in its user turn (calls that did not run skipped, a different call that ran ending
 * the streak), its identical siblings, and itself.
 */
function identicalCountAtMost(call: Placed, calls: readonly Placed[], ran: ReadonlySet<string>): number {
  let count = 1 + call.siblingsBefore.filter((s) => s.key === call.key).length;
  const firstSibling = call.at - call.siblingsBefore.length;
  for (let i = firstSibling - 1; i >= 0 && calls[i]!.turn === call.turn; i--) {
    const earlier = calls[i]!;
    if (!ran.has(earlier.id)) continue;
    if (earlier.key !== call.key) break;
    count++;
  }
  return count;
}

/** The call of `carrier`'s batch a stop's reason is about (it names the tool first): the carrier unless it moved. */
function decidedOn(carrier: Placed, calls: readonly Placed[], reason: string): Placed {
  const tool = /^"([^"]+)"/.exec(reason)?.[1];
  if (tool === undefined || tool === carrier.name) return carrier;
  const first = carrier.at - carrier.siblingsBefore.length;
  const sameBatch = (c: Placed) => c.at - c.siblingsBefore.length === first;
  return calls.slice(first).find((c) => sameBatch(c) && c.name === tool) ?? carrier;
}

const get = (id: number) => ({ toolCalls: [read(id)] });
/** Counterexamples this property found once, each a different way of getting it wrong. */
const FOUND: [ScriptedTurn[], ScriptedTurn[], Refusers, Runaway, boolean][] = [
  // A reviewer after the guards rejects the first of two identical reads: asked again, the read runs.
  [
    [{ toolCalls: [search(0)] }],
    [{ toolCalls: [search(1), search(1)] }, { toolCalls: [search(1), read(7)] }, { toolCalls: [write(1)] }],
    { ...quietRefusers, rejects: [false, false, false, false, true], reviewer: "after" },
    undefined,
    false,
  ],
  // A reviewer before them rejects the first of two: the second was judged beside it, in replay too.
  [
    [get(7)],
    [get(7), { toolCalls: [read(7), read(7)] }, { toolCalls: [search(0)] }],
    { ...quietRefusers, rejects: [false, false, true, false, false], reviewer: "before" },
    undefined,
    false,
  ],
  // A call limit's block ends the run at its token cap: no stop after it.
  [
    [
      { toolCalls: [search(0)] },
      get(7),
      { toolCalls: [write(1)] },
      { toolCalls: [search(0)] },
      { toolCalls: [search(0)] },
      get(7),
    ],
    [get(7)],
    { ...quietRefusers, limit: "after", limitedTool: "search", runLimit: 2 },
    { maxRunTokens: 120 },
    false,
  ],
  // A stop decided on a call a reviewer before the guards rejected, signalled on the next call.
  [
    [get(7), get(7), { toolCalls: [read(7), read(7), read(7)] }],
    [get(7)],
    { ...quietRefusers, rejects: [false, false, true, false, false], reviewer: "before" },
    { maxRunTokens: 60 },
    false,
  ],
  // The same, on a call whose own directive stands beside the stop it carries.
  [
    [
      { toolCalls: [search(1), search(1), read(8)] },
      { toolCalls: [search(1), search(1)] },
      get(8),
      { toolCalls: [read(8), search(1)] },
    ],
    [get(7)],
    { ...quietRefusers, rejects: [false, false, false, true, false], reviewer: "before" },
    undefined,
    false,
  ],
  // A stop about the turn moves off a call the call limit blocked onto one with a stop of its own: one stop.
  [
    [{ toolCalls: [search(0)] }],
    [{ toolCalls: [read(7), search(0)] }, { toolCalls: [search(0)] }, { toolCalls: [read(7), search(0)] }],
    { ...quietRefusers, limit: "after" },
    { maxRunTokens: 120 },
    false,
  ],
];

describe("a call answered without running is never counted by a loop guard", () => {
  it("every repeat a loop guard acts on rests on calls that ran; replay agrees with live", async () => {
    await fc.assert(
      fc.asyncProperty(
        runArb,
        runArb,
        refusersArb,
        runawayArb,
        fc.boolean(),
        async (first, second, refusers, runaway, deep) => {
          const ran = new Set<string>();
          const signals: Signal[] = [];
          const guards = recommendedGuards({
            writeTools: ["update_account"],
            runaway,
            onSignal: (s) => signals.push(s),
          });
          const stack = deep ? guards.deepAgent : guards.agent;
          const { before, after } = refusingMiddleware(refusers);
          const options = {
            model: new ScriptedChatModel({ turns: [...first, { text: "done" }, ...second, { text: "done" }] }),
            tools: loggedTools(ran),
            middleware: [...before, ...stack, ...after],
            checkpointer: new MemorySaver(),
          };
          const agent = deep ? createDeepAgent(options) : createAgent(options);
          await playTwoTurns(() => agent, refusers.approvals);
          const messages = (await agent.graph.getState({ configurable: { thread_id: "t" } })).values
            .messages as BaseMessage[];
          assertToolCallPairing(messages);

          const calls = placedCalls(messages);
          const byId = new Map(calls.map((c) => [c.id, c]));
          const ranBefore = (call: Placed, same: (earlier: Placed) => boolean) =>
            calls.slice(0, call.at - call.siblingsBefore.length).some((e) => ran.has(e.id) && same(e));
          for (const signal of signals) {
            const carrier = signal.toolCallId === undefined ? undefined : byId.get(signal.toolCallId);
            if (!carrier) continue;
            // A stop decided on a call that never reached the guard rides on the first that did: the
            // reason names the call it was decided on.
            const call = signal.action === "stop" ? decidedOn(carrier, calls, signal.reason) : carrier;
            const seen = `${signal.guard} ${signal.action} ${signal.code} on ${call.key}`;
            if (signal.code === "identical_calls")
              expect(identicalCountAtMost(call, calls, ran), seen).toBeGreaterThanOrEqual(3); // warnAt
            if (signal.code === "no_progress" || signal.code === "repeated_error")
              expect(
                ranBefore(call, (e) => e.name === call.name),
                seen,
              ).toBe(true);
            if (signal.code === "runaway_factor" && signal.action === "directive")
              expect(
                ranBefore(call, (e) => e.key === call.key && e.turn === call.turn) ||
                  call.siblingsBefore.some((s) => s.key === call.key),
                seen,
              ).toBe(true);
          }
          // A call that did not run was answered by whoever refused it, never by a tool.
          for (const message of messages)
            if (ToolMessage.isInstance(message) && !ran.has(message.tool_call_id))
              expect(String(message.content)).not.toMatch(/^(account|updated|results for)/);

          const { decided, live } = await replayedBesideLive(messages, stack, signals);
          expect(decided.sort()).toEqual(live.sort());
        },
      ),
      { numRuns: 120, examples: FOUND },
    );
  }, 240_000);
});
