import { describe, expect, it } from "vitest";
import { createAgent, modelCallLimitMiddleware, toolCallLimitMiddleware, type AgentMiddleware } from "langchain";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod";
import {
  RunawayGuardMiddleware,
  type RunawayGuardOptions,
} from "../../../src/guards/runaway/RunawayGuardMiddleware.js";
import type { RunawayReport } from "../../../src/guards/runaway/report.js";
import { SIGNAL_EVENT, type Signal } from "../../../src/core/signals.js";
import { recommendedGuards } from "../../../src/stack/recommendedGuards.js";
import { loadHasher } from "../../../src/observe/hash.js";
import type { ComposedGuards } from "../../../src/stack/composeGuards.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";

function countingTool(name: string, answer: (n: number) => string = (n) => `${name} result ${n}`) {
  const counter = { runs: 0 };
  const t = tool(async () => answer(++counter.runs), { name, description: name, schema: z.object({}).passthrough() });
  return { tool: t, counter };
}

/** A model call asking for `names` with new arguments each time, reporting 1,000 input tokens. */
const flat = (...names: string[]): ScriptedTurn => ({
  toolCalls: names.map((name, i) => ({ name, args: { i } })),
  usage: { input_tokens: 1000, output_tokens: 0 },
});
/** A model call asking for the same search again, reporting 1,000 input tokens: each repeat that learns nothing adds 1×. */
const again = (...extra: string[]): ScriptedTurn => ({
  toolCalls: [...extra.map((name) => ({ name, args: {} })), { name: "search", args: { q: "same" } }],
  usage: { input_tokens: 1000, output_tokens: 0 },
});
const repeat = <T>(n: number, item: T): T[] => Array.from({ length: n }, () => item);
/** A search that finds the same thing every time. */
const sameSearch = () => countingTool("search", () => "no results for that query");

async function run(
  options: RunawayGuardOptions,
  tools: StructuredToolInterface[],
  turns: ScriptedTurn[],
  extra: AgentMiddleware[] = [],
) {
  const signals: Signal[] = [];
  const reports: RunawayReport[] = [];
  const events: Array<{ name: string; data: unknown }> = [];
  const model = new ScriptedChatModel({ turns });
  const guard = new RunawayGuardMiddleware({
    ...options,
    onSignal: (s) => signals.push(s),
    onReport: (r) => reports.push(r),
  });
  const agent = createAgent({ model, tools, middleware: [guard, ...extra] });
  const result = await agent.invoke(
    { messages: [new HumanMessage("go")] },
    {
      recursionLimit: 1000,
      callbacks: [{ handleCustomEvent: (name: string, data: unknown) => void events.push({ name, data }) }],
    },
  );
  const messages = result.messages as BaseMessage[];
  assertToolCallPairing(messages);
  return { messages, model, signals, reports, events };
}

const guardAnswers = (messages: BaseMessage[]) =>
  messages.filter(
    (m): m is ToolMessage =>
      ToolMessage.isInstance(m) && (m.response_metadata as { harness_kit?: unknown }).harness_kit !== undefined,
  );
const lastText = (messages: BaseMessage[]) => String(messages.at(-1)?.content);

describe("RunawayGuardMiddleware in createAgent, with usage_metadata", () => {
  it("warns at 4×, refuses repeats from 5× while new calls pass, starts over when one brings news, stops cleanly at 8×", async () => {
    const search = sameSearch();
    const summarize = countingTool("summarize");
    const turns = [
      ...repeat(7, again()), // calls 1..7: the factor is k - 2 from call 3; call 7 (5×) is refused
      again("summarize"), // 8: summarize is new and runs, the search is refused
      ...repeat(9, again()), // 9 reads the new summary: 0× again; 14..16 refused, 17 stops at 8×
    ];
    const { messages, model, signals, reports, events } = await run({}, [search.tool, summarize.tool], turns);

    expect(model.callCount).toBe(17);
    expect(search.counter.runs).toBe(11); // calls 1..6 and 9..13
    expect(summarize.counter.runs).toBe(1);
    expect(signals.map((s) => `${s.action}@${String(s.detail?.modelCalls)}`)).toEqual([
      "warn@6",
      "directive@7",
      "directive@8",
      "warn@13",
      "directive@14",
      "directive@15",
      "directive@16",
      "stop@17",
    ]);
    expect(signals[0]).toMatchObject({
      guard: "RunawayGuardMiddleware",
      tool: "search",
      detail: { tier: "warn", runawayFactor: 4, stallCalls: 4, source: "usage_metadata" },
    });
    expect(signals.at(-1)).toMatchObject({
      detail: { tier: "stop", runawayFactor: 8, stallTokens: 8000, baseTokens: 1000, runTokens: 17_000 },
    });

    const refused = guardAnswers(messages).filter(
      (m) => (m.response_metadata as { harness_kit: { action: string } }).harness_kit.action === "directive",
    );
    expect(refused).toHaveLength(5);
    expect(String(refused[0]!.content)).toMatch(
      /^Not run \(runaway guard\): the last 5 rounds of tool results brought nothing new, and this "search" call repeats one already made in this request, so it is refused\. Answer with the results you already have/,
    );
    expect(refused.every((m) => m.status === "error")).toBe(true);

    const stopped = guardAnswers(messages).filter(
      (m) => (m.response_metadata as { harness_kit: { action: string } }).harness_kit.action === "stop",
    );
    expect(stopped.map((m) => String(m.content))).toEqual([
      "Not run (runaway guard): this request kept making calls that brought nothing new, so the run stopped before this call. Work from the results you already have.",
    ]);
    const last = messages.at(-1)!;
    expect(AIMessage.isInstance(last)).toBe(true);
    expect(lastText(messages)).toMatch(
      /^Run stopped by RunawayGuardMiddleware: the run re-read its context 8\.00× over since a tool last brought something new \(8,000 tokens over 8 model calls against a context of 1,000, from the model's usage_metadata\); stopping at 8×/,
    );
    expect(reports).toEqual([
      expect.objectContaining({
        peakRunawayFactor: 8,
        wastedModelCalls: 14,
        modelCalls: 17,
        toolCalls: 18,
        source: "usage_metadata",
      }),
    ]);
    expect(events.filter((e) => e.name === SIGNAL_EVENT)).toHaveLength(signals.length);
    expect(events.filter((e) => e.name === "harness_kit_report").map((e) => e.data)).toEqual(reports);
  });

  it("in observe-only mode signals every tier but never blocks or stops", async () => {
    const search = sameSearch();
    const { messages, model, signals } = await run(
      { observeOnly: true },
      [search.tool],
      [...repeat(20, again()), { text: "done" }],
    );
    expect(search.counter.runs).toBe(20);
    expect(model.callCount).toBe(21);
    expect(guardAnswers(messages)).toHaveLength(0);
    expect(lastText(messages)).toBe("done");
    expect(signals.map((s) => s.action)).toEqual(["warn", ...repeat(3, "directive"), ...repeat(11, "stop")]);
    expect(signals.every((s) => s.detail?.observeOnly === true)).toBe(true);
  });

  it("lets a long run pass untouched while every call brings something new, far past 40× its input in tokens", async () => {
    const search = countingTool("search");
    const growing = Array.from({ length: 60 }, (_, i): ScriptedTurn => ({
      toolCalls: [{ name: "search", args: { page: i } }],
      usage: { input_tokens: 1000 + 500 * i, output_tokens: 50 },
    }));
    const { messages, signals, reports } = await run(
      {},
      [search.tool],
      [...growing, { text: "done", usage: { input_tokens: 31_000, output_tokens: 200 } }],
    );
    expect(search.counter.runs).toBe(60);
    expect(signals).toEqual([]);
    expect(lastText(messages)).toBe("done");
    expect(reports[0]!.runTokens / reports[0]!.inputTokens).toBeGreaterThan(900);
    expect(reports[0]).toMatchObject({ peakRunawayFactor: 0, wastedModelCalls: 0, toolCalls: 60, modelCalls: 61 });
  });
});

describe("RunawayGuardMiddleware in createAgent, without usage_metadata", () => {
  it("estimates from the messages and says so", async () => {
    // each repeat re-reads the same 2,000-character chunk (500 tokens) and adds it to the context again
    const read = countingTool("read_chunk", () => "chunk 7: ".padEnd(2000, "x"));
    const turns = Array.from({ length: 60 }, (): ScriptedTurn => ({
      toolCalls: [{ name: "read_chunk", args: { chunk: 7 } }],
    }));
    const { messages, signals, reports } = await run({}, [read.tool], turns);
    // the repeats grow the context by 500 tokens each, so each re-read weighs more than the last: the tiers come quicker than 1× per call
    expect(signals.map((s) => s.action)).toEqual(["warn", "directive", "stop"]);
    expect(signals.every((s) => s.detail?.source === "estimate")).toBe(true);
    const factors = signals.map((s) => s.detail?.runawayFactor as number);
    expect(factors).toEqual([...factors].sort((a, b) => a - b));
    expect(factors.at(-1)).toBeGreaterThanOrEqual(8);
    expect(signals.at(-1)!.detail!.stallCalls).toBeLessThan(8);
    expect(reports[0]).toMatchObject({ source: "estimate", inputTokens: 1000 });
    expect(lastText(messages)).toMatch(
      /^Run stopped by RunawayGuardMiddleware: .* estimated at 4 characters per token\); stopping at 8×/,
    );
  });

  it("measures against the real context when it is larger than the floor", async () => {
    const search = countingTool("search", () => "short");
    const signals: Signal[] = [];
    const model = new ScriptedChatModel({ turns: repeat(50, { toolCalls: [{ name: "search", args: {} }] }) });
    const agent = createAgent({
      model,
      tools: [search.tool],
      middleware: [new RunawayGuardMiddleware({ onSignal: (s) => signals.push(s) })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("p".repeat(40_000))] }, { recursionLimit: 1000 });
    assertToolCallPairing(result.messages);
    // a 10,000-token context re-read by each repeat: 1× per model call after the first answer
    expect(model.callCount).toBe(10);
    expect(signals.at(-1)).toMatchObject({ action: "stop", detail: { stallCalls: 8, source: "estimate" } });
    expect(signals.at(-1)!.detail!.baseTokens).toBeGreaterThan(10_000);
  });
});

describe("token caps, composed with LangChain's call limits", () => {
  it("stops a run at maxRunTokens", async () => {
    const search = countingTool("search");
    const { messages, model, signals } = await run(
      { maxRunTokens: 5000 },
      [search.tool],
      repeat(20, flat("search", "search")),
    );
    expect(model.callCount).toBe(5);
    expect(search.counter.runs).toBe(8);
    expect(signals).toEqual([
      expect.objectContaining({
        action: "stop",
        detail: { cap: "maxRunTokens", limit: 5000, tokens: 5000, source: "usage_metadata" },
      }),
    ]);
    const stopped = guardAnswers(messages);
    expect(stopped.map((m) => String(m.content))).toEqual([
      "Not run (runaway guard): the token budget of this request was spent, so the run stopped before this call. Work from the results you already have.",
      "Not run: RunawayGuardMiddleware stopped the run before this call executed.",
    ]);
    expect(lastText(messages)).toBe(
      "Run stopped by RunawayGuardMiddleware: the run consumed 5,000 tokens, reaching its cap of 5,000 (maxRunTokens)",
    );
  });

  it("leaves call counts to modelCallLimitMiddleware and toolCallLimitMiddleware", async () => {
    const byModelCalls = countingTool("search");
    const models = await run({ maxRunTokens: 1_000_000 }, [byModelCalls.tool], repeat(20, flat("search")), [
      modelCallLimitMiddleware({ runLimit: 8 }),
    ]);
    expect(models.model.callCount).toBe(8);
    expect(byModelCalls.counter.runs).toBe(8);
    expect(models.signals).toEqual([]);
    expect(lastText(models.messages)).toMatch(
      /^Model call limits exceeded: run level call limit reached with 8 model calls/,
    );

    const byToolCalls = countingTool("search");
    const limiter = toolCallLimitMiddleware({ runLimit: 6, exitBehavior: "end" });
    const tools = await run({ maxRunTokens: 1_000_000 }, [byToolCalls.tool], repeat(20, flat("search")), [limiter]);
    expect(byToolCalls.counter.runs).toBe(6);
    expect(tools.signals).toEqual([]);
    expect(lastText(tools.messages)).toMatch(/^Tool call limit reached: run limit exceeded/);
  });
});

describe("the run report, built only for someone who reads it", () => {
  const agentWith = (guard: RunawayGuardMiddleware) =>
    createAgent({
      model: new ScriptedChatModel({ turns: [flat("search"), flat("search"), { text: "done" }] }),
      tools: [sameSearch().tool],
      middleware: [guard],
    });
  const input = { messages: [new HumanMessage("go")] };

  it("reaches streamEvents and a callback that takes custom events without onReport, and is built for nobody else", async () => {
    const guard = new RunawayGuardMiddleware();
    let built = 0;
    const report = guard.report;
    Object.defineProperty(guard, "report", { value: (messages: BaseMessage[]) => (built++, report(messages)) });

    const streamed: unknown[] = [];
    for await (const event of agentWith(guard).streamEvents(input, { version: "v2" }))
      if (event.event === "on_custom_event" && event.name === "harness_kit_report") streamed.push(event.data);
    expect(streamed).toEqual([expect.objectContaining({ modelCalls: 3, toolCalls: 2 })]);

    const heard: unknown[] = [];
    const handler = {
      handleCustomEvent: (name: string, data: unknown) => void (name === "harness_kit_report" && heard.push(data)),
    };
    await agentWith(guard).invoke(input, { callbacks: [handler] });
    expect(heard).toEqual(streamed);
    expect(built).toBe(2);

    // A handler that ignores custom events, or none at all: nothing would receive the report.
    await agentWith(guard).invoke(input, { callbacks: [{ ...handler, ignoreCustomEvent: true }] });
    await agentWith(guard).invoke(input);
    expect(built).toBe(2);
    expect(heard).toHaveLength(1);
  });

  it("reaches streamEvents from recommendedGuards, whose run ends on the quiet path", async () => {
    // The quiet path reads the thread once the hasher is loaded; the first call of a process loads it.
    await loadHasher();
    const [stack, ...declarations] = recommendedGuards().agent;
    const agent = createAgent({
      model: new ScriptedChatModel({
        turns: [
          { toolCalls: [{ name: "search", args: { q: "a" } }] },
          { toolCalls: [{ name: "search", args: { q: "b" } }] },
          { text: "done" },
        ],
      }),
      tools: [sameSearch().tool],
      middleware: [stack!, ...declarations],
    });
    const streamed: unknown[] = [];
    for await (const event of agent.streamEvents(input, { version: "v2" }))
      if (event.event === "on_custom_event" && event.name === "harness_kit_report") streamed.push(event.data);
    expect(streamed).toEqual([expect.objectContaining({ modelCalls: 3, toolCalls: 2 })]);
    expect((stack as unknown as ComposedGuards).quietSteps).toEqual({ tool: 2, model: 3 });
  });
});
