import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { stopNotice } from "../../src/core/answers.js";
import { InvalidOptionsError } from "../../src/core/errors.js";
import { pendingToolCalls } from "../../src/core/messages.js";
import { decideRunaway, decideRunStart, type RunawaySettings } from "../../src/guards/runaway.js";
import { estimatedChars, ledgerFor, RunawayLedger } from "../../src/guards/runawayLedger.js";
import { runawayReport } from "../../src/guards/runawayReport.js";
import { RunawayGuardMiddleware } from "../../src/middleware/RunawayGuardMiddleware.js";

let ids = 0;
type Call = { name: string; args?: Record<string, unknown> };
type Usage = { input_tokens: number; output_tokens: number; total_tokens: number };

function ai(calls: Call[], usage?: Partial<Usage> | Record<string, unknown>, content = ""): AIMessage {
  return new AIMessage({
    content,
    tool_calls: calls.map((c) => ({ id: `c${++ids}`, name: c.name, args: c.args ?? {}, type: "tool_call" as const })),
    usage_metadata: usage as Usage | undefined,
  });
}

/** The AI message followed by one answer per call. */
function step(calls: Call[], usage?: Partial<Usage>, result = "ok"): BaseMessage[] {
  const message = ai(calls, usage);
  return [message, ...message.tool_calls!.map((c) => new ToolMessage({ content: result, tool_call_id: c.id!, name: c.name }))];
}

const usage = (input: number, output = 0): Usage => ({ input_tokens: input, output_tokens: output, total_tokens: input + output });

/** `n` answered model calls that each consumed 1,000 tokens, then a pending batch in call n + 1. */
function flatRun(n: number, pending: Call[], tools = ["search"]): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage("go")];
  for (let i = 0; i < n; i++) messages.push(...step([{ name: tools[i % tools.length]!, args: { i } }], usage(1000)));
  messages.push(ai(pending, usage(1000)));
  return messages;
}

const SETTINGS: RunawaySettings = { warnAt: 15, blockAt: 25, stopAt: 40, minInputTokens: 1, maxRunTokens: undefined, maxThreadTokens: undefined };

function decide(messages: BaseMessage[], settings: Partial<RunawaySettings> = {}) {
  return decideRunaway(new RunawayLedger().update(messages), pendingToolCalls(messages), { ...SETTINGS, ...settings });
}
const actions = (messages: BaseMessage[], settings: Partial<RunawaySettings> = {}) => decide(messages, settings).map((d) => d.decision.action);

describe("RunawayLedger", () => {
  it("estimates at 4 characters per token when the models report no usage", () => {
    const messages = [new HumanMessage("x".repeat(4000)), ...step([{ name: "t" }], undefined, "y".repeat(4000)), ai([{ name: "t" }])];
    const run = new RunawayLedger().update(messages).measureRun();
    // each call's input is the context before it; each output is "t" + "{}"
    const chars = 4000 + 3 + (4000 + 3 + 4000) + 3;
    expect(run).toMatchObject({ source: "estimate", inputTokens: 1000, modelCalls: 2, toolCalls: 2 });
    expect(run.tokens).toBeCloseTo(chars / 4);
    expect(run.factor).toBeCloseTo(chars / 4 / 1000);
    expect(run.factorBefore).toBeCloseTo(4003 / 4 / 1000);
  });

  it("reads usage_metadata when every model call of the run reports it", () => {
    const messages = [new HumanMessage("go"), ...step([{ name: "t" }], usage(500, 100)), ai([{ name: "t" }], usage(900, 50))];
    const run = new RunawayLedger().update(messages).measureRun();
    expect(run).toMatchObject({ source: "usage_metadata", tokens: 1550, inputTokens: 500, modelCalls: 2 });
    expect(run.factor).toBeCloseTo(3.1);
    expect(run.factorBefore).toBeCloseTo(1.2);
  });

  it("falls back to the estimate for the whole run when one call lacks usage or reports nonsense", () => {
    for (const odd of [undefined, { input_tokens: Number.NaN, output_tokens: 1 }, { input_tokens: -5, output_tokens: 1 }, { input_tokens: "9", output_tokens: 1 }]) {
      const messages = [new HumanMessage("go"), ...step([{ name: "t" }], usage(500, 100)), ai([{ name: "t" }], odd)];
      expect(new RunawayLedger().update(messages).measureRun().source).toBe("estimate");
    }
  });

  it("raises a tiny input to minInputTokens", () => {
    const messages = [new HumanMessage("hi"), ai([{ name: "t", args: { q: "x".repeat(400) } }])];
    const ledger = new RunawayLedger().update(messages);
    expect(ledger.measureRun().factor).toBeGreaterThan(100);
    expect(ledger.measureRun(1000)).toMatchObject({ inputTokens: 1000 });
    expect(ledger.measureRun(1000).factor).toBeLessThan(0.2);
  });

  it("does not count the messages guards wrote as model calls", () => {
    const messages = [new HumanMessage("go"), ...step([{ name: "t" }], usage(500)), stopNotice("SomeGuard", "enough")];
    expect(new RunawayLedger().update(messages).measureRun()).toMatchObject({ modelCalls: 1, source: "usage_metadata", tokens: 500 });
  });

  it("starts a run at each human message but not at a summary, and keeps thread totals", () => {
    const summary = new HumanMessage({ content: "Here is a summary", additional_kwargs: { lc_source: "summarization" } });
    const messages = [
      new HumanMessage("first"),
      ...step([{ name: "a" }], usage(100)),
      new HumanMessage("second"),
      ...step([{ name: "b" }], usage(200)),
      summary,
      ...step([{ name: "c" }], usage(300)),
    ];
    const ledger = new RunawayLedger().update(messages);
    expect(ledger.measureRun()).toMatchObject({ modelCalls: 2, tokens: 500, inputTokens: 200 });
    expect(ledger.measureThread()).toEqual({ source: "usage_metadata", tokens: 600, modelCalls: 3 });
    expect([...ledger.runCallsByTool.keys()]).toEqual(["b", "c"]);
  });

  it("never throws on odd content, odd calls and odd argument values", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const odd = [
      { type: "human", content: null },
      { role: "assistant", content: { weird: 1n }, tool_calls: [{ id: "x", name: "t", args: cyclic }, { name: "no id" }, null] },
      { type: "tool", tool_call_id: "x", content: [{ type: "image", data: "AAAA" }, "text", 7, null, { type: "text", text: 5 }] },
      { type: "ai", content: [{ type: "text", text: "hello" }], usage_metadata: "lots" },
      null,
      42,
      "a string",
    ];
    expect(() => new RunawayLedger().update(odd).measureRun()).not.toThrow();
    expect(estimatedChars(odd[2])).toBe(4);
  });

  it("incremental updates always equal a full rebuild", () => {
    const messageArb = fc.oneof(
      fc.string({ maxLength: 30 }).map((text) => new HumanMessage(text) as BaseMessage),
      fc.record({
        names: fc.array(fc.constantFrom("a", "b", "task"), { maxLength: 3 }),
        usage: fc.option(fc.record({ input_tokens: fc.nat(5000), output_tokens: fc.nat(500) }), { nil: undefined }),
        text: fc.string({ maxLength: 30 }),
      }).map(({ names, usage: u, text }) => ai(names.map((name) => ({ name, args: { subagent_type: "general" } })), u, text) as BaseMessage),
      fc.string({ maxLength: 60 }).map((text) => new ToolMessage({ content: text, tool_call_id: "x" }) as BaseMessage),
    );
    fc.assert(
      fc.property(fc.array(messageArb, { maxLength: 25 }), fc.nat(24), (messages, rewriteAt) => {
        const incremental = new RunawayLedger();
        const check = (history: BaseMessage[]) => {
          const fresh = new RunawayLedger().update(history);
          incremental.update(history);
          expect(incremental.measureRun(10)).toEqual(fresh.measureRun(10));
          expect(incremental.measureThread()).toEqual(fresh.measureThread());
          expect([...incremental.runCallsByTool]).toEqual([...fresh.runCallsByTool]);
          for (const name of ["a", "b", "task"]) expect(incremental.askedBeforeLatestCall(name)).toBe(fresh.askedBeforeLatestCall(name));
        };
        for (let i = 1; i <= messages.length; i++) check(messages.slice(0, i));
        // rewritten histories must rebuild, not extend: the last message replaced, the history
        // cut short, or a new head (as after summarisation)
        if (messages.length > 0) {
          check([...messages.slice(0, -1), new HumanMessage("replaced")]);
          check(messages.slice(0, Math.min(rewriteAt, messages.length - 1)));
          check([new HumanMessage("summary"), ...messages.slice(1)]);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("is cached per history and follows it as it grows", () => {
    const messages: BaseMessage[] = [new HumanMessage("go"), ...step([{ name: "t" }], usage(100))];
    const ledger = ledgerFor(messages);
    messages.push(ai([{ name: "t" }], usage(300)));
    expect(ledgerFor(messages)).toBe(ledger);
    expect(ledger.measureRun().tokens).toBe(400);
  });
});

describe("RunawayGuard decisions", () => {
  it("warns once, when the factor crosses warnAt", () => {
    expect(actions(flatRun(13, [{ name: "search" }]))).toEqual(["allow"]); // 14×
    expect(actions(flatRun(14, [{ name: "search" }, { name: "search" }]))).toEqual(["warn", "allow"]); // 15×
    expect(actions(flatRun(15, [{ name: "search" }]))).toEqual(["allow"]); // 16×: already warned
  });

  it("from blockAt refuses tools already called in this run, and repeats inside the batch", () => {
    const messages = flatRun(24, [{ name: "search" }, { name: "summarize" }, { name: "summarize" }, { name: "fetch" }]);
    const decisions = decide(messages);
    expect(decisions.map((d) => d.decision.action)).toEqual(["directive", "allow", "directive", "allow"]);
    const refused = decisions[0]!.decision;
    expect(refused.action === "directive" && refused.message).toMatch(/^Not run: this request has already consumed 25\.0× its input in tokens and "search" was called before/);
    expect(refused.action === "directive" && refused.detail).toMatchObject({ tier: "block", threshold: 25, repetitionFactor: 25, source: "usage_metadata", runTokens: 25000, inputTokens: 1000 });
  });

  it("counts a tool as called only within the current run", () => {
    const messages = [new HumanMessage("old"), ...step([{ name: "summarize" }], usage(1000)), ...flatRun(24, [{ name: "summarize" }])];
    expect(actions(messages)).toEqual(["allow"]);
  });

  it("stops at stopAt: the stop rides on the first call, its siblings are answered as not run", () => {
    const decisions = decide(flatRun(39, [{ name: "fetch" }, { name: "search" }]));
    expect(decisions.map((d) => d.decision.action)).toEqual(["stop", "allow"]);
    const stop = decisions[0]!.decision;
    expect(stop.action === "stop" && stop.reason).toMatch(/^the run consumed 40\.0× its input in tokens \(40,000 tokens over 40 model calls for an input of 1,000, from the model's usage_metadata\); stopping at 40×$/);
  });

  it("stops at a run token cap, and at a thread token cap across runs", () => {
    expect(actions(flatRun(3, [{ name: "search" }]), { maxRunTokens: 5000 })).toEqual(["allow"]);
    const capped = decide(flatRun(4, [{ name: "search" }]), { maxRunTokens: 5000 });
    expect(capped[0]!.decision).toMatchObject({ action: "stop", detail: { cap: "maxRunTokens", limit: 5000, tokens: 5000, source: "usage_metadata" } });

    const earlier = [new HumanMessage("a"), ...step([{ name: "x" }], usage(3000)), new AIMessage({ content: "done", usage_metadata: usage(1000) })];
    const messages = [...earlier, ...flatRun(0, [{ name: "x" }])];
    expect(decide(messages, { maxThreadTokens: 5000 })[0]!.decision).toMatchObject({ action: "stop", detail: { cap: "maxThreadTokens", tokens: 5000 } });
    expect(actions(messages, { maxThreadTokens: 5001 })).toEqual(["allow"]);
  });

  it("refuses to start a run in a thread already at its cap", () => {
    const thread = [new HumanMessage("a"), ...step([{ name: "x" }], usage(3000)), new AIMessage({ content: "done", usage_metadata: usage(2000) }), new HumanMessage("b")];
    const ledger = new RunawayLedger().update(thread);
    expect(decideRunStart(ledger, { ...SETTINGS, maxThreadTokens: 5000 })).toMatchObject({ action: "stop", detail: { cap: "maxThreadTokens" } });
    expect(decideRunStart(ledger, { ...SETTINGS, maxThreadTokens: 5001 }).action).toBe("allow");
    expect(decideRunStart(ledger, SETTINGS).action).toBe("allow");
    // mid-run, decisions after each model call take over
    const midRun = new RunawayLedger().update([...thread, ai([{ name: "x" }], usage(10))]);
    expect(decideRunStart(midRun, { ...SETTINGS, maxThreadTokens: 5000 }).action).toBe("allow");
  });

  it("treats an infinite threshold as a tier turned off", () => {
    expect(actions(flatRun(60, [{ name: "search" }]), { blockAt: 40, stopAt: Number.POSITIVE_INFINITY })).toEqual(["directive"]);
  });
});

describe("run report", () => {
  it("gives the share of tool calls delegated to subagents", () => {
    const messages = [
      new HumanMessage("go"),
      ...step([{ name: "task", args: { subagent_type: "researcher" } }, { name: "task", args: { subagent_type: "__proto__" } }], usage(1000, 10)),
      ...step([{ name: "read_file" }], usage(1200, 10)),
      new AIMessage({ content: "done", usage_metadata: usage(1300, 40) }),
    ];
    const report = runawayReport("G", new RunawayLedger().update(messages), new Set(["task"]), 1);
    expect(report).toEqual({
      guard: "G",
      source: "usage_metadata",
      runTokens: 3560,
      inputTokens: 1000,
      repetitionFactor: 3.56,
      modelCalls: 3,
      toolCalls: 3,
      delegation: { delegatedCalls: 2, directCalls: 1, delegatedShare: 2 / 3, bySubagent: { researcher: 1, ["__proto__"]: 1 } },
    });
    expect(Object.getPrototypeOf(report.delegation.bySubagent)).toBe(Object.prototype);
  });
});

describe("RunawayGuardMiddleware options", () => {
  it("rejects thresholds out of order or out of range", () => {
    expect(() => new RunawayGuardMiddleware({ warnAt: 30 })).toThrow(InvalidOptionsError);
    expect(() => new RunawayGuardMiddleware({ blockAt: 50 })).toThrow(/blockAt/);
    expect(() => new RunawayGuardMiddleware({ stopAt: 0 })).toThrow(/stopAt/);
    expect(() => new RunawayGuardMiddleware({ warnAt: Number.NaN })).toThrow(/warnAt/);
    expect(() => new RunawayGuardMiddleware({ maxRunTokens: 1.5 })).toThrow(/maxRunTokens/);
    expect(() => new RunawayGuardMiddleware({ minInputTokens: 0 })).toThrow(/minInputTokens/);
    expect(() => new RunawayGuardMiddleware({ blockAt: 40, stopAt: Number.POSITIVE_INFINITY })).not.toThrow();
  });

  it("declares a beforeModel hook only for a thread cap", () => {
    expect(new RunawayGuardMiddleware().beforeModel).toBeUndefined();
    expect(new RunawayGuardMiddleware({ maxThreadTokens: 10 }).beforeModel?.canJumpTo).toEqual(["end"]);
  });
});
