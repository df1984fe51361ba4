import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { RAN_KEY, STAMPED_KEY, withMark } from "../../src/core/marks.js";
import { ledgerFor } from "../../src/guards/runaway/ledger.js";
import { argsKeyOf } from "../../src/observe/argsIdentity.js";
import { FreshCalls, freshCallsFor } from "../../src/observe/freshCalls.js";
import { loadHasher, type Hasher } from "../../src/observe/hash.js";
import { ObservationStore } from "../../src/observe/store.js";

/**
 * FreshCalls vouches for the quiet path (stack/quietPath.ts) with facts far cheaper than the
 * observation store's; each must imply what the guards read from the store and the ledger. A turn
 * it calls fresh has, for every call, no earlier answer with its arguments, no occurrence and no
 * near-duplicate candidate; a turn whose model call it says learned something leaves the runaway
 * guard's stall empty. Histories mix repeats, shared values, parallel calls, calls that did not
 * run, guards' marks, empty answers, usage reports and user turns.
 */

const callArb = fc.oneof(
  fc.record({ name: fc.constant("search"), args: fc.record({ q: fc.constantFrom("cats", "dogs", "Cats ") }) }),
  fc.record({
    name: fc.constant("read_file"),
    args: fc.record({ path: fc.constantFrom("/a", "/b", "/c"), limit: fc.constantFrom(10, 20) }),
  }),
  fc.record({ name: fc.constant("get"), args: fc.record({ id: fc.integer({ min: 1, max: 40 }) }) }),
  fc.record({ name: fc.constant("noop"), args: fc.constant({}) }),
  // Arguments past 256 characters of canonical text: the index keys them by hash, not by text.
  fc.record({
    name: fc.constant("write"),
    args: fc.record({
      path: fc.constantFrom("/a", "/b"),
      body: fc.constantFrom("x".repeat(300), "X".repeat(300), `${"x".repeat(150)}  ${"x".repeat(150)}`),
    }),
  }),
);

/** How a call was answered: ran with text or empty, answered without running, or refused with a guard's mark. */
const answerArb = fc.constantFrom("text", "same", "empty", "notRun", "unstamped", "refused");

const stepArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ human: true as const }) },
  {
    weight: 5,
    arbitrary: fc.record({
      calls: fc.array(fc.record({ call: callArb, answer: answerArb }), { minLength: 1, maxLength: 3 }),
      usage: fc.option(fc.integer({ min: 1, max: 500 }), { nil: undefined }),
    }),
  },
);

type Step = typeof stepArb extends fc.Arbitrary<infer S> ? S : never;

function build(steps: readonly Step[]): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage({ content: "go", id: "h0" })];
  steps.forEach((step, turn) => {
    if ("human" in step) {
      messages.push(new HumanMessage({ content: "more", id: `h${turn + 1}` }));
      return;
    }
    const ids = step.calls.map((_, i) => `c${turn}.${i}`);
    messages.push(
      new AIMessage({
        id: `m${turn}`,
        content: "",
        tool_calls: step.calls.map(({ call }, i) => ({ ...call, id: ids[i]!, type: "tool_call" as const })),
        response_metadata: { [STAMPED_KEY]: true },
        ...(step.usage
          ? { usage_metadata: { input_tokens: step.usage, output_tokens: 5, total_tokens: step.usage + 5 } }
          : {}),
      }),
    );
    step.calls.forEach(({ call, answer }, i) => {
      const content = answer === "empty" ? "" : answer === "same" ? "same" : `${call.name} result ${turn}.${i}`;
      const metadata =
        answer === "refused"
          ? withMark({ [RAN_KEY]: false }, { guard: "SomeGuard", action: "directive", reason: "no" })
          : answer === "unstamped"
            ? {}
            : { [RAN_KEY]: answer !== "notRun" };
      messages.push(new ToolMessage({ content, tool_call_id: ids[i]!, name: call.name, response_metadata: metadata }));
    });
  });
  return messages;
}

let hash: Hasher;
beforeAll(async () => {
  hash = await loadHasher();
});

describe("FreshCalls", () => {
  it("vouches only for what the observation store and the runaway ledger hold", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 14 }), (steps) => {
        const messages = build(steps);
        const incremental = new FreshCalls(hash);
        for (let end = 1; end <= messages.length; end++) {
          const history = messages.slice(0, end);
          const at = end - 1;
          if (!AIMessage.isInstance(history[at])) continue;
          const index = incremental.update(history);
          // Built in one go or step by step, the facts are the same.
          const whole = new FreshCalls(hash).update(history);
          expect(whole.fresh(history[at])).toBe(index.fresh(history[at]));
          expect(whole.learned(history[at])).toBe(index.learned(history[at]));
          const store = new ObservationStore(hash);
          store.update(history);
          if (index.fresh(history[at])) {
            const end = store.observations.length;
            for (const call of (history[at] as AIMessage).tool_calls ?? []) {
              const key = argsKeyOf(call.name, call.args, hash);
              expect(store.answeredWith(key)).toBe(0);
              expect(store.occurrencesOf(key)).toHaveLength(0);
              expect(store.near.mayRepeat(call.name, store.near.shapeOf(call.args), end)).toBe(false);
            }
          }
          if (index.learned(history[at])) expect(ledgerFor(history).idleBelow(Infinity)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("finds fresh turns and learning model calls in ordinary threads", () => {
    const messages = build([
      { calls: [{ call: { name: "get", args: { id: 1 } }, answer: "text" }], usage: undefined },
      { calls: [{ call: { name: "get", args: { id: 2 } }, answer: "text" }], usage: undefined },
      { calls: [{ call: { name: "get", args: { id: 2 } }, answer: "text" }], usage: undefined },
    ]);
    const index = freshCallsFor(messages, hash);
    const turns = messages.flatMap((m, i) => (AIMessage.isInstance(m) ? [i] : []));
    expect(turns.map((at) => index.fresh(messages[at]))).toEqual([true, true, false]);
    expect(turns.map((at) => index.learned(messages[at]))).toEqual([true, true, true]);
    expect(index.stored).toBe(false);
  });

  it("remembers a call asked long ago, past the near-duplicate window", () => {
    const get = (id: number): Step => ({
      calls: [{ call: { name: "get", args: { id } }, answer: "text" }],
      usage: undefined,
    });
    const messages = build([...Array.from({ length: 15 }, (_, i) => get(i + 1)), get(1)]);
    const at = messages.length - 2;
    expect(new FreshCalls(hash).update(messages.slice(0, at + 1)).fresh(messages[at])).toBe(false);
  });
});
