import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ObservationStore } from "../../../src/observe.js";
import { loadHasher } from "../../../src/observe/hash.js";
import { pendingToolCalls } from "../../../src/core/messages.js";
import { decideIdenticalCalls, type CallHistory } from "../../../src/guards/loop/identicalCalls.js";
import { history } from "../../helpers/history.js";
import { nearRepeatStep } from "../../helpers/nearRepeatSteps.js";

/** The store's history, claiming every call was made before: the guard must read the history back. */
function everyCallSeen(store: ObservationStore): CallHistory {
  return {
    get observations() {
      return store.observations;
    },
    get userTurn() {
      return store.userTurn;
    },
    answeredWith: () => 1,
  };
}

/** `message` answered by a guard instead of the tool: a call that did not run. */
function refused(message: ToolMessage, guard: string): ToolMessage {
  return new ToolMessage({
    content: "Not run",
    tool_call_id: message.tool_call_id,
    name: message.name,
    response_metadata: { harness_kit: { guard, action: "directive" } },
  });
}

/** The same search again and again, alone or in batches among new ones: streaks to warn and stop on. */
const same = { tool: "search", args: { q: "x" }, result: "the same answer" };
const fresh = fc.nat({ max: 1000 }).map((n) => ({ tool: "search", args: { q: `n${n}` }, result: `answer ${n}` }));
const repeating = fc.oneof(
  { weight: 3, arbitrary: fc.constant(same) },
  {
    weight: 1,
    arbitrary: fc.record({ batch: fc.array(fc.oneof(fc.constant(same), fresh), { minLength: 2, maxLength: 4 }) }),
  },
);

// Thresholds of 1 included: then even a first call is warned about or stopped (the fast path's boundary).
const settings = fc.record({
  warnAt: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constant(1)),
  stopAt: fc.oneof(fc.integer({ min: 3, max: 5 }), fc.constant(1)),
  window: fc.constantFrom(undefined, 1, 2, 4),
  ignoreTools: fc.constant(new Set(["think"])),
  progressFloor: fc.constant(0.02),
});

describe("LoopGuard's fast path (a call never made before)", () => {
  it("decides every call as reading the history back does, over histories of repeats, batches and refusals", async () => {
    const hash = await loadHasher();
    const actions = new Set<string>();
    await fc.assert(
      fc.property(
        fc.array(fc.oneof(nearRepeatStep, repeating, repeating), { minLength: 1, maxLength: 40, size: "max" }),
        fc.array(fc.constantFrom(undefined, undefined, undefined, "LoopGuardMiddleware", "X")),
        settings,
        (steps, refusals, options) => {
          const all = history(steps).map((m, i) =>
            m instanceof ToolMessage && refusals[i % (refusals.length || 1)]
              ? refused(m, refusals[i % refusals.length]!)
              : m,
          );
          const store = new ObservationStore(hash);
          for (let k = 1; k <= all.length; k++) {
            if (!(all[k - 1] instanceof AIMessage)) continue;
            const messages: BaseMessage[] = all.slice(0, k);
            store.update(messages);
            const batch = pendingToolCalls(messages).map((call) => ({
              call,
              key: store.pendingKeys(call.id)!.argsKey,
            }));
            const fast = decideIdenticalCalls(store, batch, options);
            expect(fast).toEqual(decideIdenticalCalls(everyCallSeen(store), batch, options));
            for (const d of fast) actions.add(d.decision.action);
          }
        },
      ),
      { numRuns: 200 },
    );
    expect([...actions].sort()).toEqual(["allow", "stop", "warn"]);
  });
});
