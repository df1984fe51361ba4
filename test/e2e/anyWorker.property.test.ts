import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, summarizationMiddleware } from "langchain";
import { createDeepAgent } from "deepagents";
import { z } from "zod";
import type { Signal } from "../../src/core/signals.js";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import {
  loggedTools,
  playTwoTurns,
  quietRefusers,
  read,
  refusersArb,
  refusingMiddleware,
  runArb,
  runawayArb,
  search,
  type Refusers,
} from "../helpers/refusers.js";

/**
 * "Stateless across processes" (docs/architecture.md, "Contracts every guard keeps") as a
 * property: a thread whose every invoke (each user turn, each human-in-the-loop resume), or every
 * step after the tools node, goes to a new agent with a new stack, as workers sharing one
 * checkpointer serve it, gets the same signals on the same calls and ends with the same messages
 * as the thread one agent serves from start to end, with LangChain's summaries and the
 * validator's safe mode or without. The guards' caches (verdicts, stores, ledgers) are per stack;
 * what they decide must come from the thread alone.
 */

const accountSchema = z.object({ id: z.number(), seats: z.number() });

type Workers = "per invoke" | "per step";
type Summary = "none" | "before" | "after";
type Runaway = typeof runawayArb extends fc.Arbitrary<infer R> ? R : never;

/** How the thread is set up, the same for one agent and for many workers. */
interface Setup {
  refusers: Refusers;
  runaway: Runaway;
  deep: boolean;
  summary: Summary;
  /** The validator judges the account reads, which do not match their spec: safe mode follows. */
  validated: boolean;
}

interface Served {
  signals: string[];
  transcript: string[];
}

async function serve(
  turns: ScriptedTurn[],
  { refusers, runaway, deep, summary, validated }: Setup,
  workers: "one" | Workers,
): Promise<Served> {
  const ran = new Set<string>();
  const signals: Signal[] = [];
  // One model, tools and refusers for the thread: the person reviewing and the script go on
  // whichever worker takes the next invoke.
  const model = new ScriptedChatModel({ turns });
  const tools = loggedTools(ran);
  const { before, after } = refusingMiddleware(refusers);
  // Summaries every few messages: what the guards carry across them must reach the next worker.
  if (summary !== "none") {
    const summariser = new ScriptedChatModel({
      turns: Array.from({ length: 100 }, () => ({ text: "Earlier: the agent called tools." })),
    });
    const summarise = summarizationMiddleware({ model: summariser, trigger: { messages: 4 }, keep: { messages: 2 } });
    if (summary === "before") before.unshift(summarise);
    else after.push(summarise);
  }
  const checkpointer = new MemorySaver();
  const worker = () => {
    const guards = recommendedGuards({
      writeTools: ["update_account"],
      runaway,
      onSignal: (s) => signals.push(s),
      ...(validated ? { outputSpecs: { get_account: { schema: accountSchema, onInvalid: "degrade" } } } : {}),
    });
    const middleware = [...before, ...(deep ? guards.deepAgent : guards.agent), ...after];
    const options = { model, tools, middleware, checkpointer };
    return deep ? createDeepAgent(options) : createAgent(options);
  };
  const first = worker();
  await playTwoTurns(() => (workers === "one" ? first : worker()), refusers.approvals, workers === "per step");
  const messages = (await first.graph.getState({ configurable: { thread_id: "t" } })).values.messages as BaseMessage[];
  assertToolCallPairing(messages);
  // Ids differ between the two threads only by the script's random prefix.
  const same = (text: string) => text.replace(/scripted-[0-9a-f]{8}/g, "scripted");
  return {
    signals: signals.map((s) => same(`${s.guard} ${s.action} ${s.code} on ${s.toolCallId ?? "-"}: ${s.reason}`)).sort(),
    transcript: messages.map((m) =>
      same(
        JSON.stringify([
          m.getType(),
          m.content,
          AIMessage.isInstance(m) ? m.tool_calls : undefined,
          ToolMessage.isInstance(m) ? [m.tool_call_id, m.status] : undefined,
        ]),
      ),
    ),
  };
}

/** Counterexamples this property found once. */
const FOUND: [ScriptedTurn[], ScriptedTurn[], Setup, Workers][] = [
  // A stop decided on a call a reviewer before the guards rejected is signalled at the next model
  // call, by the worker that takes it, though another judged the batch.
  [
    [{ toolCalls: [read(7), read(7)] }, { toolCalls: [search(0)] }, { toolCalls: [read(7), search(0)] }],
    [{ toolCalls: [search(0)] }],
    {
      refusers: {
        ...quietRefusers,
        rejects: [true, false, false, false, false],
        reviewer: "before",
        hitl: "before",
        approvals: [false, false, true],
      },
      runaway: { maxRunTokens: 60 },
      deep: false,
      summary: "none",
      validated: false,
    },
    "per step",
  ],
];

describe("the same judgement in any worker", () => {
  it("a new agent for every invoke or every step of a thread signals and answers as one agent does", async () => {
    await fc.assert(
      fc.asyncProperty(
        runArb,
        runArb,
        fc.record({
          refusers: refusersArb,
          runaway: runawayArb,
          deep: fc.boolean(),
          summary: fc.constantFrom<Summary[]>("none", "before", "after"),
          validated: fc.boolean(),
        }),
        fc.constantFrom<Workers[]>("per invoke", "per step"),
        async (first, second, setup, workers) => {
          const turns = [...first, { text: "done" }, ...second, { text: "done" }];
          const alone = await serve(turns, setup, "one");
          const fleet = await serve(turns, setup, workers);
          expect(fleet.signals).toEqual(alone.signals);
          expect(fleet.transcript).toEqual(alone.transcript);
        },
      ),
      { numRuns: 60, examples: FOUND },
    );
  }, 240_000);
});
