import { describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { guardToolMessage } from "../../../src/core/answers.js";
import { pendingToolCalls, toolCallsOf } from "../../../src/core/messages.js";
import {
  decideRunaway,
  decideTurn,
  judgeRunaway,
  judgeTurn,
  type RunawaySettings,
} from "../../../src/guards/runaway/decide.js";
import { RunawayLedger } from "../../../src/guards/runaway/ledger.js";

/**
 * The bound that lets the common step skip the runaway guard's judgement (decide.ts `idle`): on
 * every step, with every setting, the decision with the bound is the full judgement's. Random
 * threads of runs whose results bring something new, repeat, say nothing or are refused, with
 * and without usage_metadata; tiers and caps drawn at and around what the run and the thread
 * have reached, where a wrong bound would part from the full judgement.
 */

let ids = 0;
let texts = 0;

type Usage = { input_tokens: number; output_tokens: number };
type Answer = "same" | "new" | "empty" | "refused";
type Event =
  | { kind: "human" }
  | { kind: "step"; calls: { name: string; arg: number; answer: Answer }[]; usage: Usage | undefined };

const usageArb = fc.option(fc.record({ input_tokens: fc.nat(3000), output_tokens: fc.nat(300) }), {
  nil: undefined,
});
const callArb = fc.record({
  name: fc.constantFrom("read", "search", "task"),
  arg: fc.nat(2),
  answer: fc.constantFrom<Answer>("same", "same", "new", "empty", "refused"),
});
const eventArb: fc.Arbitrary<Event> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: "human" as const }) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("step" as const),
      calls: fc.array(callArb, { minLength: 0, maxLength: 3 }),
      usage: usageArb,
    }),
  },
);

function modelCall(calls: { name: string; arg: number }[], usage: Usage | undefined): AIMessage {
  return new AIMessage({
    content: calls.length === 0 ? "thinking aloud" : "",
    tool_calls: calls.map((c) => ({
      id: `b${++ids}`,
      name: c.name,
      args: { q: c.arg, subagent_type: "general" },
      type: "tool_call" as const,
    })),
    usage_metadata: usage && { ...usage, total_tokens: usage.input_tokens + usage.output_tokens },
  });
}

function answer(message: AIMessage, index: number, kind: Answer): BaseMessage {
  const call = toolCallsOf(message)[index]!;
  if (kind === "refused") return guardToolMessage(call, "OtherGuard", "directive", "Not run.");
  const content = kind === "same" ? "the same answer" : kind === "new" ? `something new ${++texts}` : "";
  return new ToolMessage({ content, tool_call_id: call.id, name: call.name });
}

/** The thread, and where each of its model calls ends a prefix with its calls pending. */
function thread(events: Event[]): { messages: BaseMessage[]; turns: number[] } {
  const messages: BaseMessage[] = [new HumanMessage("go")];
  const turns: number[] = [];
  for (const event of events) {
    if (event.kind === "human") {
      messages.push(new HumanMessage("and now?"));
      continue;
    }
    const message = modelCall(event.calls, event.usage);
    messages.push(message);
    turns.push(messages.length);
    event.calls.forEach((c, i) => messages.push(answer(message, i, c.answer)));
  }
  return { messages, turns };
}

/** Thresholds around what the ledger measured: equal to it, just either side, off, and some fixed ones. */
function candidates(ledger: RunawayLedger, minInputTokens: number) {
  const run = ledger.measureRun(minInputTokens);
  const threadTokens = ledger.measureThread().tokens;
  const near = (x: number) => [x, x - 1e-9, x + 1e-9, Math.floor(x), Math.ceil(x), x - 1, x + 1];
  return {
    tiers: [...near(run.factor), ...near(run.factorBefore), 0, 1e-9, 0.5, 1, 2, 4, 5, 8, Number.POSITIVE_INFINITY],
    caps: [undefined, ...near(run.tokens), ...near(threadTokens), 0, 1, 1000, 1e7],
  };
}

const pick = <T>(list: readonly T[], at: number): T => list[at % list.length]!;

describe("runaway bound", () => {
  it("decides every step as the full judgement does, with tiers and caps at and around the run's measures", () => {
    let skipped = 0;
    let judged = 0;
    fc.assert(
      fc.property(
        fc.array(eventArb, { minLength: 1, maxLength: 14 }),
        fc.array(fc.nat(40), { minLength: 5, maxLength: 5 }),
        fc.constantFrom(1, 10, 1000),
        (events, at, minInputTokens) => {
          const { messages, turns } = thread(events);
          for (const end of [...turns, messages.length]) {
            const history = messages.slice(0, end);
            const ledger = new RunawayLedger().update(history);
            const { tiers, caps } = candidates(ledger, minInputTokens);
            const settings: RunawaySettings = {
              warnAt: pick(tiers, at[0]!),
              blockAt: pick(tiers, at[1]!),
              stopAt: pick(tiers, at[2]!),
              minInputTokens,
              maxRunTokens: pick(caps, at[3]!),
              maxThreadTokens: pick(caps, at[4]!),
            };
            const pending = pendingToolCalls(history);
            const measure = vi.spyOn(ledger, "measureRun");
            const fast = decideRunaway(ledger, pending, settings);
            if (measure.mock.calls.length === 0) skipped++;
            else judged++;
            measure.mockRestore();
            expect(fast).toEqual(judgeRunaway(ledger, pending, settings));
            expect(decideTurn(ledger, settings)).toEqual(judgeTurn(ledger, settings));
          }
        },
      ),
      { numRuns: 300 },
    );
    // both ways were exercised, or the property proved nothing about the bound
    expect(skipped).toBeGreaterThan(100);
    expect(judged).toBeGreaterThan(100);
  });

  it("decides the common step without measuring the run: a model call that read something new, caps far away", () => {
    const messages: BaseMessage[] = [new HumanMessage("go")];
    for (let i = 0; i < 30; i++) {
      const message = modelCall([{ name: "search", arg: i }], { input_tokens: 1000 + i * 50, output_tokens: 20 });
      messages.push(message, answer(message, 0, "new"));
    }
    messages.push(modelCall([{ name: "search", arg: 99 }], { input_tokens: 2600, output_tokens: 20 }));
    const settings = (caps: Partial<RunawaySettings>): RunawaySettings => ({
      warnAt: 4,
      blockAt: 5,
      stopAt: 8,
      minInputTokens: 1000,
      maxRunTokens: undefined,
      maxThreadTokens: undefined,
      ...caps,
    });
    const measured = (history: BaseMessage[], caps: Partial<RunawaySettings>) => {
      const ledger = new RunawayLedger().update(history);
      const measure = vi.spyOn(ledger, "measureRun");
      const [decision] = decideRunaway(ledger, pendingToolCalls(history), settings(caps));
      return { action: decision!.decision.action, measured: measure.mock.calls.length > 0 };
    };
    const allowed = { action: "allow", measured: false };
    expect(measured(messages, {})).toEqual(allowed);
    expect(measured(messages, { maxRunTokens: 10_000_000, maxThreadTokens: 20_000_000 })).toEqual(allowed);
    // a cap the thread has reached: measured, and stopped
    const spent = new RunawayLedger().update(messages).measureThread().tokens;
    expect(measured(messages, { maxThreadTokens: spent })).toEqual({ action: "stop", measured: true });
    expect(measured(messages, { maxThreadTokens: spent + 1 })).toEqual(allowed);
    // a model call that read only a repeat (its second answer is its first): the stall is not empty, measured
    const stuck = messages.slice(0, -1);
    for (let i = 0; i < 2; i++) {
      const repeat = modelCall([{ name: "read", arg: 0 }], { input_tokens: 2700, output_tokens: 20 });
      stuck.push(repeat, answer(repeat, 0, "same"));
    }
    expect(measured([...stuck.slice(0, -2), ...messages.slice(-1)], {})).toEqual(allowed);
    expect(measured([...stuck, ...messages.slice(-1)], {})).toEqual({ action: "allow", measured: true });
  });
});
