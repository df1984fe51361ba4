import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { guardToolMessage, stopNotice } from "../../../src/core/answers.js";
import { InvalidOptionsError } from "../../../src/core/errors.js";
import { pendingToolCalls } from "../../../src/core/messages.js";
import { decideRunaway, decideTurn, type RunawaySettings } from "../../../src/guards/runaway/decide.js";
import { estimatedChars, ledgerFor, RunawayLedger } from "../../../src/guards/runaway/ledger.js";
import { runawayReport } from "../../../src/guards/runaway/report.js";
import { RunawayGuardMiddleware } from "../../../src/guards/runaway/RunawayGuardMiddleware.js";

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
  return [
    message,
    ...message.tool_calls!.map((c) => new ToolMessage({ content: result, tool_call_id: c.id!, name: c.name })),
  ];
}

const usage = (input: number, output = 0): Usage => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
});

/** `n` answered model calls that each consumed 1,000 tokens, each a new call, then a pending batch in call n + 1. */
function flatRun(n: number, pending: Call[], tools = ["search"]): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage("go")];
  for (let i = 0; i < n; i++) messages.push(...step([{ name: tools[i % tools.length]!, args: { i } }], usage(1000)));
  messages.push(ai(pending, usage(1000)));
  return messages;
}

/**
 * A run stuck on one call: `n` answered model calls of 1,000 tokens that all ask `search({q: "same"})`
 * and get the same answer, then a pending batch. The factor after call k + 1 is k - 1: the first
 * answer was new, the k - 1 after it were not.
 */
function stuckRun(n: number, pending: Call[] = [SAME]): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage("go")];
  for (let i = 0; i < n; i++) messages.push(...step([SAME], usage(1000), "the same answer"));
  messages.push(ai(pending, usage(1000)));
  return messages;
}
const SAME: Call = { name: "search", args: { q: "same" } };

const SETTINGS: RunawaySettings = {
  warnAt: 4,
  blockAt: 5,
  stopAt: 8,
  minInputTokens: 1,
  maxRunTokens: undefined,
  maxThreadTokens: undefined,
};

function decide(messages: BaseMessage[], settings: Partial<RunawaySettings> = {}) {
  return decideRunaway(new RunawayLedger().update(messages), pendingToolCalls(messages), { ...SETTINGS, ...settings });
}
const actions = (messages: BaseMessage[], settings: Partial<RunawaySettings> = {}) =>
  decide(messages, settings).map((d) => d.decision.action);

describe("RunawayLedger", () => {
  it("estimates at 4 characters per token when the models report no usage", () => {
    const messages = [
      new HumanMessage("x".repeat(4000)),
      ...step([{ name: "t" }], undefined, "y".repeat(4000)),
      ai([{ name: "t" }]),
    ];
    const run = new RunawayLedger().update(messages).measureRun();
    // each call's input is the context before it; each output is "t" + "{}"
    const chars = 4000 + 3 + (4000 + 3 + 4000) + 3;
    expect(run).toMatchObject({ source: "estimate", inputTokens: 1000, modelCalls: 2, toolCalls: 2 });
    expect(run.tokens).toBeCloseTo(chars / 4);
  });

  it("reads usage_metadata when every model call of the run reports it", () => {
    const messages = [
      new HumanMessage("go"),
      ...step([{ name: "t" }], usage(500, 100)),
      ai([{ name: "t" }], usage(900, 50)),
    ];
    const run = new RunawayLedger().update(messages).measureRun();
    expect(run).toMatchObject({ source: "usage_metadata", tokens: 1550, inputTokens: 500, modelCalls: 2 });
  });

  it("falls back to the estimate for the whole run when one call lacks usage or reports nonsense", () => {
    for (const odd of [
      undefined,
      { input_tokens: Number.NaN, output_tokens: 1 },
      { input_tokens: -5, output_tokens: 1 },
      { input_tokens: "9", output_tokens: 1 },
    ]) {
      const messages = [new HumanMessage("go"), ...step([{ name: "t" }], usage(500, 100)), ai([{ name: "t" }], odd)];
      expect(new RunawayLedger().update(messages).measureRun().source).toBe("estimate");
    }
  });

  it("measures a stall: what the model calls since the last new result consumed, against the input of the call that read it", () => {
    const messages = [
      new HumanMessage("go"),
      ...step([SAME], usage(2000, 100), "the same answer"), // call 1: the base
      ...step([SAME], usage(2100, 100), "the same answer"), // call 2 reads the first answer: new, the base moves here
      ...step([SAME], usage(2200, 100), "the same answer"), // call 3 reads a repeat: 2,300 tokens learned nothing
      ai([SAME], usage(2300, 100)), // call 4 too
    ];
    const run = new RunawayLedger().update(messages).measureRun();
    expect(run).toMatchObject({ stallCalls: 2, stallTokens: 4700, baseTokens: 2100, modelCalls: 4 });
    expect(run.factor).toBeCloseTo(4700 / 2100);
    expect(run.factorBefore).toBeCloseTo(2300 / 2100);
  });

  it("keeps a healthy run at 0 however long it gets: every call brings something new", () => {
    const run = new RunawayLedger().update(flatRun(200, [{ name: "search" }])).measureRun();
    expect(run.modelCalls).toBe(201);
    expect(run.factor).toBe(0);
  });

  it("starts a stall over when a result brings something new, and remembers the peak for the report", () => {
    const messages = [
      ...stuckRun(6).slice(0, -1),
      ...step([{ name: "read", args: { page: 2 } }], usage(1000), "a new page"),
      ai([SAME], usage(1000)),
    ];
    const ledger = new RunawayLedger().update(messages);
    expect(ledger.measureRun()).toMatchObject({ factor: 0, stallCalls: 0 });
    expect(ledger.measureWaste()).toEqual({ peakFactor: 5, wastedCalls: 5, wastedTokens: 5000 });
  });

  it("counts a repeat whose result changed as new, results without text as neither, and a guard's answer as nothing new", () => {
    const changed = [
      new HumanMessage("go"),
      ...step([SAME], usage(1000), "v1"),
      ...step([SAME], usage(1000), "v2"),
      ai([SAME], usage(1000)),
    ];
    expect(new RunawayLedger().update(changed).measureRun().factor).toBe(0);

    // think returns nothing: the calls that read it neither extend nor end the stall
    const withThink = [
      ...stuckRun(3).slice(0, -1),
      ...step([{ name: "think", args: { t: "hmm" } }], usage(1000), ""),
      ...step([SAME], usage(1000), "the same answer"),
      ai([SAME], usage(1000)),
    ];
    expect(new RunawayLedger().update(withThink).measureRun()).toMatchObject({ factor: 3, stallCalls: 3 });

    const refusedCall = ai([{ name: "fetch", args: { url: "x" } }], usage(1000));
    const refused = [
      new HumanMessage("go"),
      refusedCall,
      guardToolMessage(pendingToolCalls([refusedCall])[0]!, "OtherGuard", "directive", "Not run."),
      ai([SAME], usage(1000)),
    ];
    expect(new RunawayLedger().update(refused).measureRun()).toMatchObject({ factor: 1, stallCalls: 1 });
  });

  it("measures against minInputTokens when the context is smaller", () => {
    const messages = [
      new HumanMessage("hi"),
      ...step([SAME], undefined, "ok"),
      ...step([SAME], undefined, "ok"),
      ai([SAME]),
    ];
    const ledger = new RunawayLedger().update(messages);
    expect(ledger.measureRun().factor).toBeGreaterThan(2);
    expect(ledger.measureRun(1000)).toMatchObject({ inputTokens: 1000, baseTokens: 1000 });
    expect(ledger.measureRun(1000).factor).toBeLessThan(0.1);
  });

  it("equals, with flat usage, the number of model calls since a result last brought something new", () => {
    // Each batch holds new reads, repeats of SAME (its first answer is new), calls of a no-op
    // tool that returns nothing, and calls a guard refused.
    const batchArb = fc.array(fc.constantFrom("new", "repeat", "empty", "refused"), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(fc.array(batchArb, { minLength: 1, maxLength: 30 }), (batches) => {
        const messages: BaseMessage[] = [new HumanMessage("go")];
        let fresh = 0;
        let sameAnswered = false;
        let expected = 0;
        for (const batch of batches) {
          const calls = batch.map((kind) =>
            kind === "new"
              ? { name: "read", args: { n: fresh++ } }
              : kind === "empty"
                ? { name: "think", args: { n: fresh++ } }
                : SAME,
          );
          const message = ai(calls, usage(1000));
          messages.push(message);
          message.tool_calls!.forEach((call, k) => {
            const kind = batch[k]!;
            if (kind === "refused")
              messages.push(
                guardToolMessage({ id: call.id!, name: call.name, args: call.args }, "G", "directive", "Not run."),
              );
            else
              messages.push(
                new ToolMessage({
                  content: kind === "empty" ? "" : kind === "new" ? `page ${String(call.args.n)}` : "same",
                  tool_call_id: call.id!,
                  name: call.name,
                }),
              );
          });
          // the next model call reads this batch
          const learned = batch.includes("new") || (batch.includes("repeat") && !sameAnswered);
          sameAnswered ||= batch.includes("repeat");
          if (learned) expected = 0;
          else if (batch.includes("repeat") || batch.includes("refused")) expected++;
        }
        messages.push(ai([SAME], usage(1000)));
        expect(new RunawayLedger().update(messages).measureRun().factor).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("does not count the messages guards wrote as model calls", () => {
    const messages = [new HumanMessage("go"), ...step([{ name: "t" }], usage(500)), stopNotice("SomeGuard", "enough")];
    expect(new RunawayLedger().update(messages).measureRun()).toMatchObject({
      modelCalls: 1,
      source: "usage_metadata",
      tokens: 500,
    });
  });

  it("starts a run at each human message but not at a summary, and keeps thread totals", () => {
    const summary = new HumanMessage({
      content: "Here is a summary",
      additional_kwargs: { lc_source: "summarization" },
    });
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
      {
        role: "assistant",
        content: { weird: 1n },
        tool_calls: [{ id: "x", name: "t", args: cyclic }, { name: "no id" }, null],
      },
      {
        type: "tool",
        tool_call_id: "x",
        content: [{ type: "image", data: "AAAA" }, "text", 7, null, { type: "text", text: 5 }],
      },
      { type: "ai", content: [{ type: "text", text: "hello" }], usage_metadata: "lots" },
      { type: "tool", tool_call_id: "x", content: "a second answer to x" },
      null,
      42,
      "a string",
    ];
    expect(() => new RunawayLedger().update(odd).measureRun()).not.toThrow();
    expect(() => new RunawayLedger().update(odd).measureWaste()).not.toThrow();
    expect(estimatedChars(odd[2])).toBe(4);
  });

  it("incremental updates always equal a full rebuild", () => {
    const messageArb = fc.oneof(
      fc.string({ maxLength: 30 }).map((text) => new HumanMessage(text) as BaseMessage),
      fc
        .record({
          names: fc.array(fc.constantFrom("a", "b", "task"), { maxLength: 3 }),
          usage: fc.option(fc.record({ input_tokens: fc.nat(5000), output_tokens: fc.nat(500) }), { nil: undefined }),
          text: fc.string({ maxLength: 30 }),
        })
        .map(
          ({ names, usage: u, text }) =>
            ai(
              names.map((name) => ({ name, args: { subagent_type: "general" } })),
              u,
              text,
            ) as BaseMessage,
        ),
      // answers to the latest calls (ids are sequential), some repeating, some empty
      fc
        .record({ back: fc.nat(4), text: fc.constantFrom("", "same", "other", "x".repeat(50)) })
        .map(
          ({ back, text }) =>
            new ToolMessage({ content: text, tool_call_id: `c${Math.max(1, ids - back)}` }) as BaseMessage,
        ),
    );
    fc.assert(
      fc.property(fc.array(messageArb, { maxLength: 25 }), fc.nat(24), (messages, rewriteAt) => {
        const incremental = new RunawayLedger();
        const check = (history: BaseMessage[]) => {
          const fresh = new RunawayLedger().update(history);
          incremental.update(history);
          expect(incremental.measureRun(10)).toEqual(fresh.measureRun(10));
          expect(incremental.measureWaste(10)).toEqual(fresh.measureWaste(10));
          expect(incremental.measureThread()).toEqual(fresh.measureThread());
          expect([...incremental.runCallsByTool]).toEqual([...fresh.runCallsByTool]);
          expect([...incremental.runSubagentsByTool]).toEqual([...fresh.runSubagentsByTool]);
          for (const name of ["a", "b", "task"]) {
            const key = fresh.callKey({ id: "k", name, args: { subagent_type: "general" } });
            expect(incremental.answeredInRun(key)).toBe(fresh.answeredInRun(key));
          }
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
  it("leaves a long run that keeps learning alone, where run tokens ÷ input would be far past any threshold", () => {
    // 60 model calls re-reading a growing context: run tokens ÷ first input is over 1,800×
    const messages: BaseMessage[] = [new HumanMessage("go")];
    for (let i = 0; i < 60; i++)
      messages.push(...step([{ name: "bash", args: { command: `step ${i}` } }], usage(1000 + 1000 * i), `output ${i}`));
    messages.push(ai([{ name: "bash", args: { command: "step 0" } }], usage(61_000)));
    expect(new RunawayLedger().update(messages).measureRun().tokens / 1000).toBeGreaterThan(1800);
    expect(actions(messages)).toEqual(["allow"]);
  });

  it("warns once, when the factor crosses warnAt", () => {
    expect(actions(stuckRun(4))).toEqual(["allow"]); // 3×
    expect(actions(stuckRun(5, [SAME, SAME]))).toEqual(["warn", "allow"]); // 4×: a signal rides on the first call
    expect(actions(stuckRun(6), { blockAt: 10, stopAt: 20 })).toEqual(["allow"]); // 5×: already warned
  });

  it("from blockAt refuses calls that repeat an earlier call of the run, and repeats inside the batch; new calls pass", () => {
    const messages = stuckRun(6, [
      SAME,
      { name: "search", args: { q: "other" } },
      { name: "search", args: { q: "other" } },
      { name: "fetch" },
    ]);
    const decisions = decide(messages);
    expect(decisions.map((d) => d.decision.action)).toEqual(["directive", "allow", "directive", "allow"]);
    const refused = decisions[0]!.decision;
    expect(refused.action === "directive" && refused.message).toBe(
      'Not run (runaway guard): the last 5 rounds of tool results brought nothing new, and this "search" call repeats one already made in this request, so it is refused. Answer with the results you already have, or make a call you have not made yet.',
    );
    expect(refused.action === "directive" && refused.detail).toMatchObject({
      tier: "block",
      threshold: 5,
      runawayFactor: 5,
      stallCalls: 5,
      stallTokens: 5000,
      baseTokens: 1000,
      source: "usage_metadata",
    });
  });

  it("counts a call as made only within the current run", () => {
    const other = { name: "search", args: { q: "asked yesterday" } };
    const messages = [new HumanMessage("old"), ...step([other], usage(1000)), ...stuckRun(6, [other])];
    expect(actions(messages)).toEqual(["allow"]);
  });

  it("stops at stopAt: the stop rides on the first call, its siblings are answered as not run", () => {
    expect(actions(stuckRun(8))).toEqual(["directive"]); // 7×
    const decisions = decide(stuckRun(9, [{ name: "fetch" }, SAME]));
    expect(decisions.map((d) => d.decision.action)).toEqual(["stop", "allow"]);
    const stop = decisions[0]!.decision;
    expect(stop.action === "stop" && stop.reason).toBe(
      "the run re-read its context 8.00× over since a tool last brought something new (8,000 tokens over 8 model calls against a context of 1,000, from the model's usage_metadata); stopping at 8×",
    );
    expect(stop.action === "stop" && stop.message).toBe(
      "Not run (runaway guard): this request kept making calls that brought nothing new, so the run stopped before this call. Work from the results you already have.",
    );
  });

  it("stops at a run token cap, and at a thread token cap across runs", () => {
    expect(actions(flatRun(3, [{ name: "search" }]), { maxRunTokens: 5000 })).toEqual(["allow"]);
    const capped = decide(flatRun(4, [{ name: "search" }]), { maxRunTokens: 5000 });
    expect(capped[0]!.decision).toMatchObject({
      action: "stop",
      detail: { cap: "maxRunTokens", limit: 5000, tokens: 5000, source: "usage_metadata" },
    });

    const earlier = [
      new HumanMessage("a"),
      ...step([{ name: "x" }], usage(3000)),
      new AIMessage({ content: "done", usage_metadata: usage(1000) }),
    ];
    const messages = [...earlier, ...flatRun(0, [{ name: "x" }])];
    expect(decide(messages, { maxThreadTokens: 5000 })[0]!.decision).toMatchObject({
      action: "stop",
      detail: { cap: "maxThreadTokens", tokens: 5000 },
    });
    expect(actions(messages, { maxThreadTokens: 5001 })).toEqual(["allow"]);
  });

  it("refuses to start a run in a thread already at its cap", () => {
    const thread = [
      new HumanMessage("a"),
      ...step([{ name: "x" }], usage(3000)),
      new AIMessage({ content: "done", usage_metadata: usage(2000) }),
      new HumanMessage("b"),
    ];
    const ledger = new RunawayLedger().update(thread);
    expect(decideTurn(ledger, { ...SETTINGS, maxThreadTokens: 5000 })).toMatchObject({
      action: "stop",
      detail: { cap: "maxThreadTokens" },
    });
    expect(decideTurn(ledger, { ...SETTINGS, maxThreadTokens: 5001 }).action).toBe("allow");
    expect(decideTurn(ledger, SETTINGS).action).toBe("allow");
    // at a run's start, the run has spent nothing yet
    expect(decideTurn(ledger, { ...SETTINGS, maxRunTokens: 1 }).action).toBe("allow");
  });

  it("stops after a turn as a whole at the caps and the stop tier of its batch, with no call to carry the stop", () => {
    const turn = (messages: BaseMessage[], settings: Partial<RunawaySettings> = {}) =>
      decideTurn(new RunawayLedger().update(messages), { ...SETTINGS, ...settings });
    const capped = flatRun(4, [{ name: "search" }]);
    expect(turn(capped, { maxRunTokens: 5000 })).toEqual(decide(capped, { maxRunTokens: 5000 })[0]!.decision);
    expect(turn(flatRun(3, [{ name: "search" }]), { maxRunTokens: 5000 }).action).toBe("allow");
    expect(turn(stuckRun(30))).toMatchObject({ action: "stop", code: "runaway_factor" });
    // a warning or a block needs a call to carry it
    expect(turn(stuckRun(5)).action).toBe("allow");
    expect(turn(stuckRun(7)).action).toBe("allow");
  });

  it("treats an infinite threshold as a tier turned off", () => {
    expect(actions(stuckRun(30), { blockAt: 8, stopAt: Number.POSITIVE_INFINITY })).toEqual(["directive"]);
  });
});

describe("run report", () => {
  it("gives the run's peak factor, its waste, and the share of tool calls delegated to subagents", () => {
    const messages = [
      new HumanMessage("go"),
      ...step(
        [
          { name: "task", args: { subagent_type: "researcher" } },
          { name: "task", args: { subagent_type: "__proto__" } },
        ],
        usage(1000, 10),
      ),
      ...step([{ name: "read_file" }], usage(1200, 10), "same"),
      ...step([{ name: "read_file" }], usage(1300, 10), "same"),
      new AIMessage({ content: "done", usage_metadata: usage(1400, 40) }),
    ];
    const report = runawayReport("G", new RunawayLedger().update(messages), new Set(["task"]), 1);
    expect(report).toEqual({
      guard: "G",
      source: "usage_metadata",
      runTokens: 4970,
      inputTokens: 1000,
      peakRunawayFactor: Math.round((1440 / 1300) * 100) / 100,
      wastedTokens: 1440,
      wastedModelCalls: 1,
      modelCalls: 4,
      toolCalls: 4,
      delegation: {
        delegatedCalls: 2,
        directCalls: 2,
        delegatedShare: 0.5,
        bySubagent: { researcher: 1, ["__proto__"]: 1 },
      },
    });
    expect(Object.getPrototypeOf(report.delegation.bySubagent)).toBe(Object.prototype);
  });
});

describe("RunawayGuardMiddleware options", () => {
  it("rejects thresholds out of order or out of range", () => {
    expect(() => new RunawayGuardMiddleware({ warnAt: 6 })).toThrow(InvalidOptionsError);
    expect(() => new RunawayGuardMiddleware({ blockAt: 9 })).toThrow(/blockAt/);
    expect(() => new RunawayGuardMiddleware({ stopAt: 0 })).toThrow(/stopAt/);
    expect(() => new RunawayGuardMiddleware({ warnAt: Number.NaN })).toThrow(/warnAt/);
    expect(() => new RunawayGuardMiddleware({ maxRunTokens: 1.5 })).toThrow(/maxRunTokens/);
    expect(() => new RunawayGuardMiddleware({ minInputTokens: 0 })).toThrow(/minInputTokens/);
    expect(() => new RunawayGuardMiddleware({ blockAt: 8, stopAt: Number.POSITIVE_INFINITY })).not.toThrow();
  });

  it("decides with the calibrated defaults: warn at 4×, refuse repeats from 5×, stop at 8×", async () => {
    const guard = new RunawayGuardMiddleware();
    const at = async (n: number) =>
      (await guard.evaluate(stuckRun(n), [{ id: "p", name: SAME.name, args: SAME.args }])).map(
        (d) => d.decision.action,
      );
    expect(await at(4)).toEqual(["allow"]);
    expect(await at(5)).toEqual(["warn"]);
    expect(await at(6)).toEqual(["directive"]);
    expect(await at(9)).toEqual(["stop"]);
  });
});
