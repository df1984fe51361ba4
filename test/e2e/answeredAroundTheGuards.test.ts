import { describe, expect, it } from "vitest";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware, toolCallLimitMiddleware, type AgentMiddleware } from "langchain";
import { z } from "zod";
import { ANSWERED_BEFORE_KEY } from "../../src/core/marks.js";
import type { Signal } from "../../src/core/signals.js";
import { recommendedGuards, type RecommendedGuardsOptions } from "../../src/stack/recommendedGuards.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { replayedBesideLive } from "../helpers/replayAgrees.js";

/**
 * Calls another middleware answers without running them, beside the guards (docs/architecture.md,
 * "Two kinds of guard" and "Judge as one"): through a real createAgent graph, what the guards
 * decide live, and replay of the thread deciding the same.
 */

const read = { name: "get_account", args: { id: 7 } };

/** A reviewer that rejects the `n`th call it meets (from 0), without running it. */
function rejectingNth(...rejected: number[]): AgentMiddleware {
  let met = 0;
  return createMiddleware({
    name: "Reviewer",
    wrapToolCall: (request, handler) =>
      rejected.includes(met++)
        ? new ToolMessage({
            content: "Rejected by the reviewer.",
            tool_call_id: request.toolCall.id ?? "",
            name: request.toolCall.name,
            status: "error",
          })
        : handler(request),
  }) as AgentMiddleware;
}

/**
 * The scripted run through `around(stack)`, at LangGraph's default recursionLimit. With
 * `workerPerStep`, the run pauses after each tools node and a new agent with a new stack, as
 * another worker would, goes on from there.
 */
async function run(
  turns: ScriptedTurn[],
  around: (stack: AgentMiddleware[]) => AgentMiddleware[],
  options: RecommendedGuardsOptions = {},
  workerPerStep = false,
) {
  const signals: Signal[] = [];
  const ran: string[] = [];
  const guards = () => recommendedGuards({ ...options, onSignal: (s) => signals.push(s) }).agent;
  const stack = guards();
  const tools = [
    tool(
      async ({ id }: { id: number }, config: { toolCall?: { id?: string } }) => {
        ran.push(config.toolCall?.id ?? "");
        return `account ${id}: 3 seats`;
      },
      { name: "get_account", description: "read an account", schema: z.object({ id: z.number() }) },
    ),
    tool(async ({ q }: { q: number }) => `results for ${q}`, {
      name: "search",
      description: "search",
      schema: z.object({ q: z.number() }),
    }),
  ];
  const model = new ScriptedChatModel({ turns: [...turns, { text: "done" }] });
  const checkpointer = new MemorySaver();
  const agent = createAgent({ model, tools, middleware: around(stack), checkpointer });
  const config = { configurable: { thread_id: "t" } };
  if (!workerPerStep) await agent.invoke({ messages: [new HumanMessage("check account 7")] }, config);
  else {
    const paused = { ...config, interruptAfter: ["tools"] };
    await agent.invoke({ messages: [new HumanMessage("check account 7")] }, paused);
    while ((await agent.graph.getState(config)).next.length > 0)
      await createAgent({ model, tools, middleware: around(guards()), checkpointer }).invoke(null, paused);
  }
  const messages = (await agent.graph.getState(config)).values.messages as BaseMessage[];
  assertToolCallPairing(messages);
  const replay = await replayedBesideLive(messages, stack, signals);
  return { signals, ran, messages, ...replay };
}

const answerTo = (messages: readonly BaseMessage[], id: string | undefined) =>
  messages.find((m): m is ToolMessage => ToolMessage.isInstance(m) && m.tool_call_id === id)!;
const callIds = (messages: readonly BaseMessage[]) =>
  messages.flatMap((m) => (m as { tool_calls?: { id?: string }[] }).tool_calls ?? []).map((c) => c.id!);

describe("a reviewer inside the guards rejects the first of two identical parallel reads", () => {
  it("the read asked for again on the next turn runs: nothing of it ran to repeat", async () => {
    const { signals, ran, messages, decided, live } = await run(
      [{ toolCalls: [read, read] }, { toolCalls: [read] }],
      (stack) => [...stack, rejectingNth(0)],
    );
    const [rejected, duplicate, again] = callIds(messages);
    expect(answerTo(messages, rejected).content).toBe("Rejected by the reviewer.");
    expect(signals.map((s) => `${s.code} ${s.toolCallId === duplicate}`)).toEqual(["duplicate_in_batch true"]);
    expect(ran).toEqual([again]);
    expect(String(answerTo(messages, again).content)).toBe("account 7: 3 seats");
    expect(decided).toEqual(live);
  });
});

describe("a reviewer listed before the guards rejects a call while they judge its siblings", () => {
  it("the call counted as one of the batch, and replay, reading the batch's record, decides as live", async () => {
    const { signals, ran, messages, decided, live } = await run([{ toolCalls: [read, read] }], (stack) => [
      rejectingNth(0),
      ...stack,
    ]);
    const [rejected, duplicate] = callIds(messages);
    expect(answerTo(messages, rejected).content).toBe("Rejected by the reviewer.");
    expect(signals.map((s) => `${s.code} ${s.toolCallId === duplicate}`)).toEqual(["duplicate_in_batch true"]);
    expect(ran).toEqual([]);
    // Nothing was answered when the guards judged the batch.
    expect(answerTo(messages, duplicate).response_metadata[ANSWERED_BEFORE_KEY]).toEqual([]);
    expect(decided).toEqual(live);
  });

  it.each([
    ["one worker", false],
    ["another worker after the tools node", true],
  ])(
    "a stop decided on that call is signalled once, on the first call that reached the guard (%s)",
    async (_, workerPerStep) => {
      const reviewer = rejectingNth(1); // one for the thread, whichever worker takes it
      const { signals, messages, decided, live } = await run(
        [{ toolCalls: [{ name: "search", args: { q: 1 } }] }, { toolCalls: [read, read, read] }],
        (stack) => [reviewer, ...stack],
        { runaway: { maxRunTokens: 20 } },
        workerPerStep,
      );
      const [, rejected, second, third] = callIds(messages);
      expect(answerTo(messages, rejected).content).toBe("Rejected by the reviewer.");
      const stops = signals.filter((s) => s.action === "stop");
      expect(stops.map((s) => [s.guard, s.code, s.toolCallId])).toEqual([
        ["RunawayGuardMiddleware", "run_token_cap", second],
      ]);
      for (const id of [second, third]) expect(String(answerTo(messages, id).content)).toMatch(/^Not run/);
      expect(String(messages.at(-1)!.content)).toMatch(/^Run stopped by RunawayGuardMiddleware/);
      expect(decided).toEqual(live);
    },
  );
});

describe("a call limit's block ends the run: no turn is judged after it", () => {
  it("replay reports no stop at a token cap the run reached with its blocked turn", async () => {
    const { signals, messages, decided, live, replayed } = await run(
      [
        { toolCalls: [{ name: "search", args: { q: 0 } }] },
        { toolCalls: [{ name: "search", args: { q: 1 } }] },
        { toolCalls: [read] },
      ],
      (stack) => [
        ...stack,
        toolCallLimitMiddleware({ toolName: "get_account", runLimit: 0, exitBehavior: "continue" }),
      ],
      { runaway: { maxRunTokens: 30 } },
    );
    // LangChain ends the run after a turn whose every call it blocked: no model call follows.
    expect(ToolMessage.isInstance(messages.at(-1))).toBe(true);
    expect(signals.filter((s) => s.action === "stop")).toEqual([]);
    expect(decided).toEqual(live);
    expect(replayed.stops).toEqual([]);
  });
});
