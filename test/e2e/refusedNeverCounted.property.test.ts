import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import {
  createAgent,
  createMiddleware,
  humanInTheLoopMiddleware,
  toolCallLimitMiddleware,
  type AgentMiddleware,
} from "langchain";
import { createDeepAgent } from "deepagents";
import { z } from "zod";
import type { Signal } from "../../src/core/signals.js";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { replayedBesideLive } from "../helpers/replayAgrees.js";

/**
 * "A refused call did not run" (docs/architecture.md, "Judge as one") as a property: whoever
 * answered a call without running it (a reviewer middleware, LangChain's call limit or
 * human-in-the-loop, one of our guards), listed before or after the stack, over two user turns
 * of one thread, through createAgent or createDeepAgent, no loop guard ever
 * counts it. Every repeat a loop guard acts on is backed by earlier calls whose tool really ran
 * (the tools log what they ran), and replay gives the decisions made live.
 */

const read = (id: number) => ({ name: "get_account", args: { id } });
const write = (seats: number) => ({ name: "update_account", args: { id: 7, seats } });
const search = (q: number) => ({ name: "search", args: { q } });

const callArb = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 7, max: 8 }).map(read) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }).map(write) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 1 }).map(search) },
);
const runArb = fc.array(
  fc.array(callArb, { minLength: 1, maxLength: 3 }).map((toolCalls): ScriptedTurn => ({ toolCalls })),
  { minLength: 1, maxLength: 8 },
);
type Refusers = typeof refusersArb extends fc.Arbitrary<infer R> ? R : never;
type Runaway = typeof runawayArb extends fc.Arbitrary<infer R> ? R : never;
const refusersArb = fc.record({
  /** Which occurrences of a call the reviewer rejects (by the call's key and how often it saw it). */
  rejects: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
  reviewer: fc.constantFrom("none", "before", "after"),
  limit: fc.constantFrom("none", "before", "after"),
  limitedTool: fc.constantFrom("get_account", "search"),
  /** A person reviewing every call (LangChain's human-in-the-loop), approving or rejecting each turn's. */
  hitl: fc.constantFrom("none", "before", "after"),
  approvals: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  runLimit: fc.integer({ min: 0, max: 3 }),
});
// The runaway guard's defaults, its tiers low enough to block repeats in these short runs, or a
// run token cap these runs reach (a stop on a batch some of whose calls another middleware answered).
const runawayArb = fc.constantFrom(
  undefined,
  { warnAt: 1, blockAt: 1.5, stopAt: 1000, minInputTokens: 10 },
  { maxRunTokens: 60 },
  { maxRunTokens: 120 },
);

const keyOf = (name: string, args: unknown) => `${name} ${JSON.stringify(args)}`;

function loggedTools(ran: Set<string>) {
  const logged = (name: string, text: (args: Record<string, unknown>) => string, schema: z.ZodObject) =>
    tool(
      async (args: Record<string, unknown>, config: { toolCall?: { id?: string } }) => {
        ran.add(config.toolCall?.id ?? "");
        return text(args);
      },
      { name, description: name, schema },
    );
  return [
    logged("get_account", ({ id }) => `account ${String(id)}: 3 seats`, z.object({ id: z.number() })),
    logged("update_account", () => "updated", z.object({ id: z.number(), seats: z.number() })),
    logged("search", ({ q }) => `results for ${String(q)}`, z.object({ q: z.number() })),
  ];
}

/** A reviewer that rejects some occurrences of a call without running it, as a person would. */
function reviewer(rejects: readonly boolean[]): AgentMiddleware {
  const seen = new Map<string, number>();
  return createMiddleware({
    name: "Reviewer",
    wrapToolCall: (request, handler) => {
      const key = keyOf(request.toolCall.name, request.toolCall.args);
      const n = seen.get(key) ?? 0;
      seen.set(key, n + 1);
      if (!rejects[(key.length + n) % rejects.length]) return handler(request);
      return new ToolMessage({
        content: "Rejected by the reviewer.",
        tool_call_id: request.toolCall.id ?? "",
        name: request.toolCall.name,
        status: "error",
      });
    },
  }) as AgentMiddleware;
}

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
const quiet: Refusers = {
  rejects: [false],
  reviewer: "none",
  limit: "none",
  limitedTool: "get_account",
  runLimit: 0,
  hitl: "none",
  approvals: [true],
};
/** Counterexamples this property found once, each a different way of getting it wrong. */
const FOUND: [ScriptedTurn[], ScriptedTurn[], Refusers, Runaway, boolean][] = [
  // A reviewer after the guards rejects the first of two identical reads: asked again, the read runs.
  [
    [{ toolCalls: [search(0)] }],
    [{ toolCalls: [search(1), search(1)] }, { toolCalls: [search(1), read(7)] }, { toolCalls: [write(1)] }],
    { ...quiet, rejects: [false, false, false, false, true], reviewer: "after" },
    undefined,
    false,
  ],
  // A reviewer before them rejects the first of two: the second was judged beside it, in replay too.
  [
    [get(7)],
    [get(7), { toolCalls: [read(7), read(7)] }, { toolCalls: [search(0)] }],
    { ...quiet, rejects: [false, false, true, false, false], reviewer: "before" },
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
    { ...quiet, limit: "after", limitedTool: "search", runLimit: 2 },
    { maxRunTokens: 120 },
    false,
  ],
  // A stop decided on a call a reviewer before the guards rejected, signalled on the next call.
  [
    [get(7), get(7), { toolCalls: [read(7), read(7), read(7)] }],
    [get(7)],
    { ...quiet, rejects: [false, false, true, false, false], reviewer: "before" },
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
    { ...quiet, rejects: [false, false, false, true, false], reviewer: "before" },
    undefined,
    false,
  ],
  // A stop about the turn moves off a call the call limit blocked onto one with a stop of its own: one stop.
  [
    [{ toolCalls: [search(0)] }],
    [{ toolCalls: [read(7), search(0)] }, { toolCalls: [search(0)] }, { toolCalls: [read(7), search(0)] }],
    { ...quiet, limit: "after" },
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
          const before: AgentMiddleware[] = [];
          const after: AgentMiddleware[] = [];
          if (refusers.reviewer !== "none")
            (refusers.reviewer === "before" ? before : after).push(reviewer(refusers.rejects));
          // LangChain answers a call twice when its call limit blocks a call its reviewer then rejects.
          if (refusers.limit !== "none" && refusers.hitl === "none")
            (refusers.limit === "before" ? before : after).push(
              toolCallLimitMiddleware({
                toolName: refusers.limitedTool,
                runLimit: refusers.runLimit,
                exitBehavior: "continue",
              }),
            );
          if (refusers.hitl !== "none")
            (refusers.hitl === "before" ? before : after).push(
              // Every tool reviewed: LangChain drops an unreviewed call of a turn whose reviewed call is rejected.
              humanInTheLoopMiddleware({ interruptOn: { get_account: true, update_account: true, search: true } }),
            );
          const options = {
            model: new ScriptedChatModel({ turns: [...first, { text: "done" }, ...second, { text: "done" }] }),
            tools: loggedTools(ran),
            middleware: [...before, ...stack, ...after],
            checkpointer: new MemorySaver(),
          };
          const agent = deep ? createDeepAgent(options) : createAgent(options);
          const config = { configurable: { thread_id: "t" }, recursionLimit: 200 };
          let reviews = 0;
          for (const text of ["check the account", "and once more"]) {
            let result = await agent.invoke({ messages: [new HumanMessage(text)] }, config);
            // The reviewer decides a whole turn's writes alike (LangChain drops the approved call of
            // a turn it is told to reject in part).
            for (let interrupt = result.__interrupt__?.[0]; interrupt; interrupt = result.__interrupt__?.[0]) {
              const { actionRequests } = interrupt.value as { actionRequests: unknown[] };
              const approve = refusers.approvals[reviews++ % refusers.approvals.length];
              const decisions = actionRequests.map(() =>
                approve ? { type: "approve" } : { type: "reject", message: "Not now." },
              );
              result = await agent.invoke(new Command({ resume: { decisions } }), config);
            }
          }
          const messages = (await agent.graph.getState(config)).values.messages as BaseMessage[];
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
