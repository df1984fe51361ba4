import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { z } from "zod";
import type { Signal } from "../../src/core/signals.js";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { accountCallArb } from "../helpers/accountCalls.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";

/**
 * Observe-only is exact up to the first refusal (docs/architecture.md, "Would-be refusals"): the
 * same scripted agent with the stack enforcing and with it only observing gets the same signals,
 * on the same calls, until the first turn a guard acts on, and the observing stack signals a
 * refusal at that turn too; observing changes nothing the tools see.
 */

const turnsArb = fc
  .array(fc.array(accountCallArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 10 })
  .map((turns): ScriptedTurn[] => [
    // Call ids of the script's own, the same in both agents.
    ...turns.map((calls, t) => ({ toolCalls: calls.map((call, k) => ({ ...call, id: `c${t}.${k}` })) })),
    { text: "done" },
  ]);
const runawayArb = fc.constantFrom(undefined, { warnAt: 1, blockAt: 1.5, stopAt: 3, minInputTokens: 10 });

async function run(turns: ScriptedTurn[], runaway: object | undefined, observeOnly: boolean) {
  const signals: Signal[] = [];
  const ran: string[] = [];
  let reads = 0;
  const tools = [
    tool(
      async ({ id }: { id: number }) => (
        ran.push(`get ${id}`),
        reads++ === 1 ? "<html>502</html>" : JSON.stringify({ id, seats: 3 })
      ),
      { name: "get_account", description: "read an account", schema: z.object({ id: z.number() }) },
    ),
    tool(async ({ seats }: { seats: number }) => (ran.push(`update ${seats}`), "updated"), {
      name: "update_account",
      description: "change an account",
      schema: z.object({ id: z.number(), seats: z.number() }),
    }),
    tool(async ({ q }: { q: number }) => (ran.push(`search ${q}`), `results for ${q}`), {
      name: "search",
      description: "search",
      schema: z.object({ q: z.number() }),
    }),
  ];
  const stack = recommendedGuards({
    writeTools: ["update_account"],
    outputSpecs: { get_account: { schema: z.object({ id: z.number(), seats: z.number() }), onInvalid: "degrade" } },
    runaway,
    observeOnly,
    onSignal: (s) => signals.push(s),
  }).agent;
  const agent = createAgent({ model: new ScriptedChatModel({ turns }), tools, middleware: stack });
  const { messages } = (await agent.invoke(
    { messages: [new HumanMessage("check account 7")] },
    { recursionLimit: 300 },
  )) as {
    messages: BaseMessage[];
  };
  assertToolCallPairing(messages);
  return { signals, ran };
}

/** The turn a signal is about (`c<turn>.<k>`), or Infinity for one about no call. */
const turnOf = (s: Signal) => (s.toolCallId?.startsWith("c") ? Number(s.toolCallId.slice(1).split(".")[0]) : Infinity);
const acts = (s: Signal) => s.action === "directive" || s.action === "stop";
const described = (s: Signal) => `${s.guard} ${s.action} ${s.code} @${s.toolCallId}`;

describe("observe-only signals what enforcing does, up to the first refusal", () => {
  it("the same signals on the same calls before the first turn a guard acts on, and a refusal at it", async () => {
    await fc.assert(
      fc.asyncProperty(turnsArb, runawayArb, async (turns, runaway) => {
        const enforcing = await run(turns, runaway, false);
        const observing = await run(turns, runaway, true);
        const firstActing = Math.min(...enforcing.signals.filter(acts).map(turnOf));
        const before = (signals: Signal[]) =>
          signals
            .filter((s) => turnOf(s) < firstActing)
            .map(described)
            .sort();
        expect(before(observing.signals)).toEqual(before(enforcing.signals));
        // The first refusal comes at the same turn. (There, and after, the observed run also runs
        // the calls enforcing refused: every other guard judges them as calls that ran.)
        expect(Math.min(...observing.signals.filter(acts).map(turnOf))).toBe(firstActing);
        // Observing changes nothing: every call the script made to a real tool ran.
        expect(observing.ran).toHaveLength(
          turns.flatMap((t) => ("toolCalls" in t ? t.toolCalls! : [])).filter((c) => c.name !== "ghost_tool").length,
        );
      }),
      { numRuns: 80 },
    );
  }, 240_000);
});
