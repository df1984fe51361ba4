import { describe, expect, it } from "vitest";
import { createAgent, modelCallLimitMiddleware, toolCallLimitMiddleware, type AgentMiddleware } from "langchain";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod";
import { RunawayGuardMiddleware, type RunawayGuardOptions } from "../../src/middleware/RunawayGuardMiddleware.js";
import type { RunawayReport } from "../../src/guards/runawayReport.js";
import { SIGNAL_EVENT, type Signal } from "../../src/core/signals.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";

function countingTool(name: string, answer: (n: number) => string = (n) => `${name} result ${n}`) {
  const counter = { runs: 0 };
  const t = tool(async () => answer(++counter.runs), { name, description: name, schema: z.object({}).passthrough() });
  return { tool: t, counter };
}

/** A model call asking for `names`, reporting 1,000 input tokens: the factor after call k is k. */
const flat = (...names: string[]): ScriptedTurn => ({
  toolCalls: names.map((name, i) => ({ name, args: { i } })),
  usage: { input_tokens: 1000, output_tokens: 0 },
});
const repeat = <T,>(n: number, item: T): T[] => Array.from({ length: n }, () => item);

async function run(options: RunawayGuardOptions, tools: StructuredToolInterface[], turns: ScriptedTurn[], extra: AgentMiddleware[] = []) {
  const signals: Signal[] = [];
  const reports: RunawayReport[] = [];
  const events: Array<{ name: string; data: unknown }> = [];
  const model = new ScriptedChatModel({ turns });
  const guard = new RunawayGuardMiddleware({ ...options, onSignal: (s) => signals.push(s), onReport: (r) => reports.push(r) });
  const agent = createAgent({ model, tools, middleware: [guard, ...extra] });
  const result = await agent.invoke(
    { messages: [new HumanMessage("go")] },
    { recursionLimit: 1000, callbacks: [{ handleCustomEvent: (name: string, data: unknown) => void events.push({ name, data }) }] },
  );
  const messages = result.messages as BaseMessage[];
  assertToolCallPairing(messages);
  return { messages, model, signals, reports, events };
}

const guardAnswers = (messages: BaseMessage[]) =>
  messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m) && (m.response_metadata as { harness_kit?: unknown }).harness_kit !== undefined);
const lastText = (messages: BaseMessage[]) => String(messages.at(-1)?.content);

describe("RunawayGuardMiddleware in createAgent, with usage_metadata", () => {
  it("warns at 15×, refuses repeated tools from 25×, stops cleanly at 40×", async () => {
    const search = countingTool("search");
    const summarize = countingTool("summarize");
    const turns = [
      ...repeat(26, flat("search")), // calls 1..26; 25 and 26 are refused
      flat("summarize"), // 27: a tool not called yet in this run passes
      flat("summarize", "search"), // 28: both called before
      ...repeat(20, flat("search")),
    ];
    const { messages, model, signals, reports, events } = await run({}, [search.tool, summarize.tool], turns);

    expect(model.callCount).toBe(40);
    expect(search.counter.runs).toBe(24);
    expect(summarize.counter.runs).toBe(1);
    // refused: calls 25 and 26, both calls of 28, calls 29 to 39
    expect(signals.map((s) => s.action)).toEqual(["warn", ...repeat(15, "directive"), "stop"]);
    expect(signals[0]).toMatchObject({ guard: "RunawayGuardMiddleware", action: "warn", tool: "search", detail: { tier: "warn", repetitionFactor: 15, source: "usage_metadata" } });
    expect(signals.at(-1)).toMatchObject({ action: "stop", detail: { tier: "stop", repetitionFactor: 40, runTokens: 40_000, inputTokens: 1000 } });

    const refused = guardAnswers(messages).filter((m) => (m.response_metadata as { harness_kit: { action: string } }).harness_kit.action === "directive");
    expect(refused).toHaveLength(15);
    expect(String(refused[0]!.content)).toMatch(/^Not run: this request has already consumed 25\.0× its input in tokens and "search" was called before, so repeats are refused\. Answer with the results you already have/);
    expect(refused.every((m) => m.status === "error")).toBe(true);

    const last = messages.at(-1)!;
    expect(AIMessage.isInstance(last)).toBe(true);
    expect(lastText(messages)).toBe(
      "Run stopped by RunawayGuardMiddleware: the run consumed 40.0× its input in tokens (40,000 tokens over 40 model calls for an input of 1,000, from the model's usage_metadata); stopping at 40×",
    );
    expect(reports).toEqual([expect.objectContaining({ repetitionFactor: 40, modelCalls: 40, toolCalls: 41, source: "usage_metadata" })]);
    expect(events.filter((e) => e.name === SIGNAL_EVENT)).toHaveLength(signals.length);
    expect(events.filter((e) => e.name === "harness_kit_report").map((e) => e.data)).toEqual(reports);
  });

  it("in observe-only mode signals every tier but never blocks or stops", async () => {
    const search = countingTool("search");
    const { messages, model, signals } = await run({ observeOnly: true }, [search.tool], [...repeat(45, flat("search")), { text: "done" }]);
    expect(search.counter.runs).toBe(45);
    expect(model.callCount).toBe(46);
    expect(guardAnswers(messages)).toHaveLength(0);
    expect(lastText(messages)).toBe("done");
    expect(signals.map((s) => s.action)).toEqual(["warn", ...repeat(15, "directive"), ...repeat(6, "stop")]);
    expect(signals.every((s) => s.detail?.observeOnly === true)).toBe(true);
  });

  it("lets a run that answers well below the thresholds pass untouched", async () => {
    const search = countingTool("search");
    const { messages, signals, reports } = await run({}, [search.tool], [...repeat(10, flat("search", "search")), { text: "done", usage: { input_tokens: 1000, output_tokens: 200 } }]);
    expect(search.counter.runs).toBe(20);
    expect(signals).toEqual([]);
    expect(lastText(messages)).toBe("done");
    expect(reports[0]).toMatchObject({ repetitionFactor: 11.2, toolCalls: 20, modelCalls: 11 });
  });
});

describe("RunawayGuardMiddleware in createAgent, without usage_metadata", () => {
  it("estimates from the messages and says so", async () => {
    // each result adds 2,000 characters (500 tokens) to a context that every model call re-reads
    const read = countingTool("read_chunk", (n) => `${n}:`.padEnd(2000, "x"));
    const turns = Array.from({ length: 60 }, (_, i): ScriptedTurn => ({ toolCalls: [{ name: "read_chunk", args: { chunk: i } }] }));
    const { messages, model, signals, reports } = await run({}, [read.tool], turns);
    expect(signals.map((s) => s.action)).toContain("stop");
    expect(signals.every((s) => s.detail?.source === "estimate")).toBe(true);
    const factors = signals.map((s) => s.detail?.repetitionFactor as number);
    expect(factors).toEqual([...factors].sort((a, b) => a - b));
    expect(factors.at(-1)).toBeGreaterThanOrEqual(40);
    expect(signals[0]).toMatchObject({ action: "warn" });
    // the context grows, so the tiers come well before 40 model calls; the input is the 1,000-token floor
    expect(model.callCount).toBeLessThan(20);
    expect(reports[0]).toMatchObject({ source: "estimate", inputTokens: 1000 });
    expect(lastText(messages)).toMatch(/^Run stopped by RunawayGuardMiddleware: .* estimated at 4 characters per token\); stopping at 40×$/);
  });

  it("measures against the real input when it is larger than the floor", async () => {
    const search = countingTool("search", () => "short");
    const signals: Signal[] = [];
    const model = new ScriptedChatModel({ turns: repeat(50, { toolCalls: [{ name: "search", args: {} }] }) });
    const agent = createAgent({ model, tools: [search.tool], middleware: [new RunawayGuardMiddleware({ onSignal: (s) => signals.push(s) })] });
    const result = await agent.invoke({ messages: [new HumanMessage("p".repeat(40_000))] }, { recursionLimit: 1000 });
    assertToolCallPairing(result.messages);
    // a 10,000-token input re-read by each call: the factor is about the number of model calls
    expect(model.callCount).toBe(40);
    expect(signals.at(-1)).toMatchObject({ action: "stop", detail: { inputTokens: 10_000, source: "estimate" } });
  });
});

describe("token caps, composed with LangChain's call limits", () => {
  it("stops a run at maxRunTokens", async () => {
    const search = countingTool("search");
    const { messages, model, signals } = await run({ maxRunTokens: 5000 }, [search.tool], repeat(20, flat("search", "search")));
    expect(model.callCount).toBe(5);
    expect(search.counter.runs).toBe(8);
    expect(signals).toEqual([expect.objectContaining({ action: "stop", detail: { cap: "maxRunTokens", limit: 5000, tokens: 5000, source: "usage_metadata" } })]);
    const stopped = guardAnswers(messages);
    expect(stopped.map((m) => String(m.content))).toEqual([
      "Not run: the token budget of this request was spent, so the run stopped before this call. Work from the results you already have.",
      "Not run: RunawayGuardMiddleware stopped the run before this call executed.",
    ]);
    expect(lastText(messages)).toBe("Run stopped by RunawayGuardMiddleware: the run consumed 5,000 tokens, reaching its cap of 5,000 (maxRunTokens)");
  });

  it("leaves call counts to modelCallLimitMiddleware and toolCallLimitMiddleware", async () => {
    const byModelCalls = countingTool("search");
    const models = await run({ maxRunTokens: 1_000_000 }, [byModelCalls.tool], repeat(20, flat("search")), [modelCallLimitMiddleware({ runLimit: 8 })]);
    expect(models.model.callCount).toBe(8);
    expect(byModelCalls.counter.runs).toBe(8);
    expect(models.signals).toEqual([]);
    expect(lastText(models.messages)).toMatch(/^Model call limits exceeded: run level call limit reached with 8 model calls/);

    const byToolCalls = countingTool("search");
    const limiter = toolCallLimitMiddleware({ runLimit: 6, exitBehavior: "end" });
    const tools = await run({ maxRunTokens: 1_000_000 }, [byToolCalls.tool], repeat(20, flat("search")), [limiter]);
    expect(byToolCalls.counter.runs).toBe(6);
    expect(tools.signals).toEqual([]);
    expect(lastText(tools.messages)).toMatch(/^Tool call limit reached: run limit exceeded/);
  });
});
