import { describe, expect, it } from "vitest";
import { createAgent, createMiddleware, summarizationMiddleware } from "langchain";
import { createDeepAgent } from "deepagents";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { MemorySaver } from "@langchain/langgraph";
import type { Signal } from "../../../src/core/signals.js";
import { RunawayGuardMiddleware } from "../../../src/guards/runaway/RunawayGuardMiddleware.js";
import type { RunawayReport } from "../../../src/guards/runaway/report.js";
import { stopLine } from "../../../src/cli/render.js";
import { buildReplaySetup } from "../../../src/replay/config.js";
import { replayThread, type StackedGuard } from "../../../src/replay/replayThread.js";
import { recommendedGuards } from "../../../src/stack/recommendedGuards.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";

/** Every batch is judged by every guard it reaches: a token cap applies to every model turn, whatever its calls. */

const usage = { input_tokens: 3_900, output_tokens: 100 };
const repeat = <T>(n: number, item: T): T[] => Array.from({ length: n }, () => item);
/** A model turn of 4,000 tokens that calls only tools that do not exist. */
const phantoms: ScriptedTurn = {
  toolCalls: [
    { name: "fetch_everything", args: {} },
    { name: "summon_data", args: { q: 1 } },
  ],
  usage,
};

const search = tool(async ({ q }) => `nothing about ${q}`, {
  name: "search",
  description: "Search.",
  schema: z.object({ q: z.string() }),
});
const guardOf = (m: BaseMessage) => (m.response_metadata as { harness_kit?: { guard?: string } }).harness_kit?.guard;
const invoke = async (agent: {
  invoke: (input: { messages: BaseMessage[] }, config: object) => Promise<{ messages: BaseMessage[] }>;
}) => (await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 200 })).messages;

describe("the runaway guard judges every model turn, whatever its calls", () => {
  it("stops at the token cap a run whose model calls only phantom tools, with every call answered", async () => {
    const signals: Signal[] = [];
    const reports: RunawayReport[] = [];
    const guards = recommendedGuards({
      runaway: { maxRunTokens: 10_000, onReport: (report) => reports.push(report) },
      repair: { exitBehavior: "directive" },
      onSignal: (signal) => signals.push(signal),
    });
    const model = new ScriptedChatModel({ turns: repeat(20, phantoms) });
    const messages = await invoke(createAgent({ model, tools: [search], middleware: guards.agent }));

    assertToolCallPairing(messages);
    expect(model.callCount).toBe(3); // 12,000 tokens: the cap is met after the third call
    const last = messages.at(-1)!;
    expect(guardOf(last)).toBe("RunawayGuardMiddleware");
    expect(String(last.content)).toMatch(/the run consumed 12,000 tokens, reaching its cap of 10,000 \(maxRunTokens\)/);
    // The repair guard answered every phantom call, the runaway guard stopped before the next model call.
    const answers = messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(answers).toHaveLength(6);
    expect(answers.every((m) => guardOf(m) === "ToolCallRepairMiddleware")).toBe(true);
    expect(signals.filter((s) => s.guard === "RunawayGuardMiddleware")).toEqual([
      expect.objectContaining({
        action: "stop",
        code: "run_token_cap",
        detail: expect.objectContaining({ tokens: 12_000 }),
      }),
    ]);
    expect(reports).toHaveLength(1);
    expect(reports[0]!.modelCalls).toBe(3);

    // Replayed, the runaway guard stops the run at the same turn.
    const setup = buildReplaySetup({
      guards: {
        RunawayGuardMiddleware: { maxRunTokens: 10_000 },
        ProgressAwareLoopGuardMiddleware: {},
        LoopGuardMiddleware: {},
      },
    });
    const replayed = await replayThread(messages, setup.stack);
    const acted = replayed.decisions
      .filter((d) => !d.shadowedBy)
      .map((d) => `${d.guard}:${d.action}@${d.messageIndex}`);
    expect(acted).toEqual(["RunawayGuardMiddleware:stop@7"]); // the third model turn: go, then 3 messages per turn
  });

  it("stops at the token cap when an outer middleware answered every call of the turns", async () => {
    const signals: Signal[] = [];
    const refuseAll = createMiddleware({
      name: "RefuseAll",
      wrapToolCall: (request) =>
        new ToolMessage({
          content: "refused",
          tool_call_id: request.toolCall.id ?? "",
          name: request.toolCall.name,
          status: "error",
        }),
    });
    const runaway = new RunawayGuardMiddleware({ maxRunTokens: 10_000, onSignal: (signal) => signals.push(signal) });
    const model = new ScriptedChatModel({
      turns: repeat(20, { toolCalls: [{ name: "search", args: { q: "x" } }], usage }),
    });
    const messages = await invoke(createAgent({ model, tools: [search], middleware: [refuseAll, runaway] }));

    assertToolCallPairing(messages);
    expect(model.callCount).toBe(3);
    expect(guardOf(messages.at(-1)!)).toBe("RunawayGuardMiddleware");
    expect(signals.map((s) => `${s.action}:${s.code}`)).toEqual(["stop:run_token_cap"]);

    // Replayed with the same outer guard, the runaway guard stops the run after the same turn. Its
    // answers carry neither a run stamp nor a mark: for replay no guard met those calls live, so
    // the outer guard's replayed refusals are shadowed by "another middleware".
    const refusing: StackedGuard = {
      guard: {
        name: "RefuseAll",
        evaluate: async (_history, pending) =>
          pending.map((call) => ({
            call,
            decision: { action: "directive", code: "policy_denied", reason: "refused", message: "refused" },
          })),
      },
      observeOnly: false,
      exitBehavior: "directive",
    };
    const { stack } = buildReplaySetup({ guards: { RunawayGuardMiddleware: { maxRunTokens: 10_000 } } });
    const replayed = await replayThread(messages, [refusing, ...stack]);
    const acted = replayed.decisions
      .filter((d) => !d.shadowedBy)
      .map((d) => `${d.guard}:${d.action}@${d.messageIndex}`);
    expect(acted).toEqual(["RunawayGuardMiddleware:stop@5"]);
    expect(new Set(replayed.decisions.filter((d) => d.guard === "RefuseAll").map((d) => d.shadowedBy))).toEqual(
      new Set(["another middleware"]),
    );
  });

  it("names the turn's first call in the signal of a stop decided on the whole turn, as replay does", async () => {
    const signals: Signal[] = [];
    const guards = recommendedGuards({
      runaway: { maxRunTokens: 10_000 },
      repair: { exitBehavior: "directive" },
      onSignal: (signal) => signals.push(signal),
    });
    const model = new ScriptedChatModel({ turns: repeat(20, phantoms) });
    const messages = await invoke(createAgent({ model, tools: [search], middleware: guards.agent }));

    const { stack } = buildReplaySetup({ guards: { RunawayGuardMiddleware: { maxRunTokens: 10_000 } } });
    const replayed = await replayThread(messages, stack);
    const named = (s: { guard: string; action: string; toolCallId?: string; tool?: string }) =>
      `${s.guard}:${s.action}:${s.tool}:${s.toolCallId}`;
    expect(signals.filter((s) => s.guard === "RunawayGuardMiddleware").map(named)).toEqual(
      replayed.decisions.map(named),
    );
    expect(replayed.decisions.map((d) => d.tool)).toEqual(["fetch_everything"]);
  });

  it("judges a turn its calls reached once: no second signal before the next model call", async () => {
    const signals: Signal[] = [];
    const runaway = new RunawayGuardMiddleware({
      maxRunTokens: 10_000,
      observeOnly: true,
      onSignal: (signal) => signals.push(signal),
    });
    const model = new ScriptedChatModel({
      turns: [...repeat(3, { toolCalls: [{ name: "search", args: { q: "x" } }], usage }), { text: "done" }],
    });
    await invoke(createAgent({ model, tools: [search], middleware: [runaway] }));

    expect(signals.map((s) => `${s.action}:${s.toolCallId === undefined ? "turn" : "call"}`)).toEqual(["stop:call"]);
  });
});

describe("a thread already at its cap stops the next run at its start, live and in replay", () => {
  const CAP = 10_000;
  /** Two runs in one thread: three turns of 4,000 tokens (the cap is met after the run's last), then a new request. */
  /** `id`: the id every call gets, as a provider that reuses ids sends them; unique ids when absent. */
  function cappedModel(id?: string) {
    const call = (q: string) => ({ toolCalls: [{ name: "search", args: { q }, ...(id ? { id } : {}) }], usage });
    return new ScriptedChatModel({
      turns: [call("a"), call("b"), { text: "found nothing", usage }, call("c"), { text: "still nothing", usage }],
    });
  }
  /** Two requests in one thread, at LangGraph's default recursionLimit. */
  async function twoRequests(agent: {
    invoke: (input: { messages: BaseMessage[] }, config: object) => Promise<{ messages: BaseMessage[] }>;
  }) {
    const config = { configurable: { thread_id: "capped" } };
    await agent.invoke({ messages: [new HumanMessage("look for a")] }, config);
    return (await agent.invoke({ messages: [new HumanMessage("and for c?")] }, config)).messages;
  }
  async function twoRuns(middleware: Parameters<typeof createAgent>[0]["middleware"]) {
    const model = cappedModel();
    const agent = createAgent({ model, tools: [search], middleware, checkpointer: new MemorySaver() });
    return { messages: await twoRequests(agent as never), model };
  }
  const replayStack = () => buildReplaySetup({ guards: { RunawayGuardMiddleware: { maxThreadTokens: CAP } } }).stack;

  it("live: the second run ends before its first model call; replay shows that stop where it was made", async () => {
    const signals: Signal[] = [];
    const runaway = new RunawayGuardMiddleware({ maxThreadTokens: CAP, onSignal: (s) => signals.push(s) });
    const { messages, model } = await twoRuns([runaway]);

    expect(model.callCount).toBe(3);
    expect(guardOf(messages.at(-1)!)).toBe("RunawayGuardMiddleware");
    const stop = signals.find((s) => s.action === "stop")!;
    expect(stop).toMatchObject({ code: "thread_token_cap" });
    expect(stop.toolCallId).toBeUndefined();

    const replayed = await replayThread(messages, replayStack());
    expect(replayed.stops).toEqual([
      expect.objectContaining({
        guard: "RunawayGuardMiddleware",
        reason: stop.reason,
        atRunStart: true,
        messageIndex: messages.length - 1,
        modelCallsAfter: 0,
        toolCallsAfter: 0,
      }),
    ]);
    expect(replayed.stops[0]!.toolCallId).toBeUndefined();
    expect(replayed.decisions.map((d) => `${d.guard}:${d.action}:${d.code}:${d.toolCallId}`)).toEqual([
      "RunawayGuardMiddleware:stop:thread_token_cap:undefined",
    ]);
  });

  it("replayed over an unguarded thread: the stop is at the second run's first model call, which it saves", async () => {
    const { messages } = await twoRuns([]);
    const secondRun = messages.map((m) => HumanMessage.isInstance(m)).lastIndexOf(true);
    const replayed = await replayThread(messages, replayStack());

    expect(replayed.stops).toEqual([
      expect.objectContaining({
        guard: "RunawayGuardMiddleware",
        atRunStart: true,
        messageIndex: secondRun + 1,
        tool: "search",
        modelCallsAfter: 2,
        toolCallsAfter: 1,
        tokensAfter: 8_000,
        tokenSource: "usage_metadata",
      }),
    ]);
    expect(replayed.stops[0]!.reason).toMatch(/the thread consumed 12,000 tokens, reaching its cap of 10,000/);
    expect(stopLine("capped", replayed.stops[0]!)).toContain(
      `RunawayGuardMiddleware stops the run at its start, before the model call of message ${secondRun + 1}; after it the run made 2 model calls and 1 tool call, 8,000 tokens`,
    );
    // The second run's calls are ones it would never have made.
    expect(replayed.decisions.filter((d) => d.messageIndex > secondRun + 1).every((d) => d.afterStop)).toBe(true);
  });

  it("a summary in the middle of a run is no run's start: the run it is in stays stopped", async () => {
    const turn = (q: string, id: string) =>
      new AIMessage({ content: "", tool_calls: [{ id, name: "search", args: { q } }], usage_metadata: tokens(6_000) });
    const answer = (id: string) =>
      new ToolMessage({ content: `nothing about ${id}`, tool_call_id: id, name: "search" });
    const summary = new HumanMessage({
      content: "Here is a summary of the conversation so far: searched for a.",
      additional_kwargs: { lc_source: "summarization" },
    });
    const messages: BaseMessage[] = [
      new HumanMessage("look for a and b"),
      turn("a", "call_a"),
      answer("call_a"),
      summary,
      turn("b", "call_b"),
      answer("call_b"),
      new AIMessage({ content: "nothing", usage_metadata: tokens(6_000) }),
    ];
    const { stack } = buildReplaySetup({ guards: { RunawayGuardMiddleware: { maxThreadTokens: 5_000 } } });
    const replayed = await replayThread(messages, stack);

    expect(replayed.stops).toEqual([
      expect.objectContaining({ messageIndex: 1, modelCallsAfter: 2, toolCallsAfter: 1, tokensAfter: 12_000 }),
    ]);
    expect(replayed.decisions.filter((d) => d.messageIndex > 1).every((d) => d.afterStop)).toBe(true);
  });
  it.each(["createAgent", "createDeepAgent"] as const)(
    "with the whole stack in %s, ids reused every turn: the second run ends at its start, and replay agrees",
    async (kind) => {
      const signals: Signal[] = [];
      const guards = recommendedGuards({ runaway: { maxThreadTokens: CAP }, onSignal: (s) => signals.push(s) });
      const model = cappedModel("call_1");
      const checkpointer = new MemorySaver();
      const agent =
        kind === "createAgent"
          ? createAgent({ model, tools: [search], middleware: guards.agent, checkpointer })
          : createDeepAgent({ model, tools: [search], middleware: guards.deepAgent, checkpointer });
      const messages = await twoRequests(agent as never);

      expect(model.callCount).toBe(3);
      assertToolCallPairing(messages);
      expect(guardOf(messages.at(-1)!)).toBe("RunawayGuardMiddleware");
      const stops = signals.filter((s) => s.action === "stop");
      expect(stops.map((s) => [s.code, s.toolCallId])).toEqual([["thread_token_cap", undefined]]);
      const replayed = await replayThread(messages, replayStack());
      expect(replayed.stops).toEqual([
        expect.objectContaining({ reason: stops[0]!.reason, atRunStart: true, messageIndex: messages.length - 1 }),
      ]);
    },
  );

  it("with the whole stack and a summary in the middle of the first run: the second run still ends at its start", async () => {
    const signals: Signal[] = [];
    const summariser = new ScriptedChatModel({
      turns: Array.from({ length: 20 }, () => ({ text: "Earlier: searched for a." })),
    });
    const model = cappedModel("call_1");
    const agent = createAgent({
      model,
      tools: [search],
      middleware: [
        summarizationMiddleware({ model: summariser, trigger: { messages: 4 }, keep: { messages: 2 } }),
        ...recommendedGuards({ runaway: { maxThreadTokens: CAP }, onSignal: (s) => signals.push(s) }).agent,
      ],
      checkpointer: new MemorySaver(),
    });
    const messages = await twoRequests(agent as never);

    expect(messages.some((m) => m.additional_kwargs?.lc_source === "summarization")).toBe(true);
    expect(model.callCount).toBe(3);
    assertToolCallPairing(messages);
    expect(guardOf(messages.at(-1)!)).toBe("RunawayGuardMiddleware");
    expect(signals.filter((s) => s.action === "stop").map((s) => s.code)).toEqual(["thread_token_cap"]);
  });
});

function tokens(total: number) {
  return { input_tokens: total - 100, output_tokens: 100, total_tokens: total };
}
