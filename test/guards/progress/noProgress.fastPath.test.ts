import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { ObservationStore } from "../../../src/observe.js";
import { ProgressAwareLoopGuardMiddleware } from "../../../src/index.js";
import { loadHasher } from "../../../src/observe/hash.js";
import { NearRepeats } from "../../../src/observe/nearRepeats.js";
import { pendingToolCalls } from "../../../src/core/messages.js";
import {
  changesStateByName,
  decideNoProgress,
  type NoProgressOptions,
  type ObservedHistory,
} from "../../../src/guards/progress/noProgress.js";
import { history } from "../../helpers/history.js";
import { echoingReads, keyedReadStep, nearRepeatStep } from "../../helpers/nearRepeatSteps.js";

/** Near-duplicate matching without its index: every scan compares the calls it visits. */
class FullScan extends NearRepeats {
  override mayRepeat(): boolean {
    return true;
  }
}

/** The guard's settings; two equal copies, since what it concludes is kept per settings object. */
function settings(): NoProgressOptions {
  return {
    stopAt: 3,
    progressFloor: 0.02,
    ignoreTools: new Set(["think"]),
    changesState: changesStateByName(new Set(), new Set()),
    pollingTools: new Set(),
    pollPatience: 5,
  };
}

/** The store's history, read through near-duplicate matching that scans every time. */
function scanningEverything(store: ObservationStore): ObservedHistory {
  const near = new FullScan(store.observations);
  return {
    get observations() {
      return store.observations;
    },
    get userTurn() {
      return store.userTurn;
    },
    userMessage: (turn) => store.userMessage(turn),
    occurrencesOf: (key) => store.occurrencesOf(key),
    near,
  };
}

describe("ProgressAwareLoopGuard's fast path (no occurrence, no near-duplicate candidate)", () => {
  it("decides every call as the full scans do, over histories of exact and near repeats and failures", async () => {
    const hash = await loadHasher();
    const actions = new Set<string>();
    await fc.assert(
      fc.property(
        fc.oneof(
          fc.array(fc.oneof(nearRepeatStep, keyedReadStep), { minLength: 1, maxLength: 40, size: "max" }),
          echoingReads,
        ),
        (steps) => {
          const all = history(steps);
          const store = new ObservationStore(hash);
          const full = scanningEverything(store);
          const [indexed, scanned] = [settings(), settings()];
          for (let k = 1; k <= all.length; k++) {
            if (!(all[k - 1] instanceof AIMessage)) continue;
            // The history as the guard sees it at each step: the calls just made have no result yet.
            const messages: BaseMessage[] = all.slice(0, k);
            store.update(messages);
            const batch = pendingToolCalls(messages).map((call) => {
              const keys = store.pendingKeys(call.id)!;
              return { call, key: keys.callKey, argsKey: keys.argsKey };
            });
            const fast = decideNoProgress(store, batch, indexed);
            expect(fast).toEqual(decideNoProgress(full, batch, scanned));
            for (const d of fast) actions.add(d.decision.action);
          }
        },
      ),
      { numRuns: 150 },
    );
    // The histories reach every rung, not only calls let through.
    expect([...actions].sort()).toEqual(["allow", "directive"]);
  });

  it("still finds a near-duplicate among the last calls when the exact original is further back", async () => {
    const read = (key: string, page?: number) => ({
      tool: "read_file",
      args: page === undefined ? { key } : { key, page },
      result: `{"key":"${key}","value":1}`,
    });
    const others = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => read(`${prefix}${i}`));
    // "a" read, re-read with a field added 6 calls later (same result: wasted), read again 9 calls after that.
    const steps = [read("a"), ...others("x", 5), read("a", 2), ...others("y", 8), read("a")];
    const messages = history(steps, { pendingLast: true });
    const [decision] = await new ProgressAwareLoopGuardMiddleware().evaluate(messages, pendingToolCalls(messages));
    expect(decision!.decision).toMatchObject({ action: "directive", detail: { nearDuplicates: 1, wasted: 1 } });
    // A new key among the same reads is let through at once.
    const fresh = history([...steps.slice(0, -1), read("b")], { pendingLast: true });
    const [allowed] = await new ProgressAwareLoopGuardMiddleware().evaluate(fresh, pendingToolCalls(fresh));
    expect(allowed!.decision.action).toBe("allow");
  });

  it("lets a call with no earlier occurrence through as a chain of nothing does, polling tools and patience at the boundary included", async () => {
    const hash = await loadHasher();
    await fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 6 }), { maxLength: 8 }),
        fc.constantFrom("read_log", "poll_job", "write_file"),
        fc.boolean(),
        fc.option(fc.integer({ min: -1, max: 3 }), { nil: undefined }),
        (earlier, tool, polled, pollPatience) => {
          // Earlier reads of other keys, then a call of `tool` with a key never used before.
          const steps = earlier.map((n) => ({ tool: "read_log", args: { key: `k${n}` }, result: `log ${n}` }));
          const messages = history([...steps, { tool, args: { key: "new" }, result: "" }], { pendingLast: true });
          const store = new ObservationStore(hash);
          store.update(messages);
          const batch = pendingToolCalls(messages).map((call) => {
            const keys = store.pendingKeys(call.id)!;
            return { call, key: keys.callKey, argsKey: keys.argsKey };
          });
          const options = { ...settings(), pollingTools: new Set(polled ? [tool] : []), pollPatience };
          const [decided] = decideNoProgress(store, batch, options);
          // A chain of nothing wastes 0: allowed below a patience of 1, or of the polling tool's own.
          const patience = polled ? (pollPatience ?? 1) : 1;
          expect(decided!.decision.action).toBe(0 < patience ? "allow" : "directive");
        },
      ),
      { numRuns: 300 },
    );
  });
});
