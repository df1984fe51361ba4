import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ObservationStore, makeSetMembershipDelta } from "../../src/observe.js";
import { loadHasher } from "../../src/observe/hash.js";
import { NearRepeats } from "../../src/observe/nearRepeats.js";
import { ALREADY_NORMAL, argsShapeOf, normaliseText, type ArgsShape } from "../../src/observe/argsIdentity.js";
import { history } from "../helpers/history.js";
import { keyedReadStep, nearRepeatArgs, nearRepeatStep } from "../helpers/nearRepeatSteps.js";

/** Near-duplicate matching without its index: every scan compares the calls it visits. */
class FullScan extends NearRepeats {
  override mayRepeat(): boolean {
    return true;
  }
}

/** An arguments key no call has: the scans then skip no call for being an exact repeat. */
const NO_KEY = "none#0";

const keyedArgs = fc.nat({ max: 25 }).map((n) => ({ key: `k${n}` }));

/** Wherever the index says no, both scans find nothing. */
function expectSound(near: NearRepeats, positions: readonly number[], shapes: readonly ArgsShape[]): void {
  for (const tool of ["read_file", "edit_file", "book", "bash"])
    for (const before of positions) {
      if (before < 0) continue;
      for (const shape of shapes) {
        if (near.mayRepeat(tool, shape, before)) continue;
        expect(near.similarBefore(tool, NO_KEY, shape, before)).toEqual([]);
        expect(near.sameFailureBefore(tool, NO_KEY, shape, before)).toEqual([]);
      }
    }
}

describe("the near-duplicate index (NearRepeats.mayRepeat)", () => {
  it("says no only when neither scan finds anything, for any call and position, as the history grows", async () => {
    const hash = await loadHasher();
    await fc.assert(
      fc.property(
        fc.array(fc.oneof(nearRepeatStep, keyedReadStep, keyedReadStep), { minLength: 1, maxLength: 45, size: "max" }),
        fc.array(fc.oneof(nearRepeatArgs, keyedArgs), { minLength: 1, maxLength: 4 }),
        (steps, fresh) => {
          const messages = history(steps);
          const store = new ObservationStore(hash);
          const freshShapes = fresh.map(argsShapeOf);
          for (let k = 1; k <= messages.length; k++) {
            const end = store.update(messages.slice(0, k)).length;
            // What the guards ask, step by step: about a pending call (at the end), and about the newest call.
            const newest = end > 0 ? [store.near.shapeAt(end - 1)] : [];
            expectSound(store.near, [end, end - 1], [...freshShapes, ...newest]);
          }
          // And anything else, once the history is whole: every position, every call's shape.
          const end = store.observations.length;
          const every = Array.from({ length: end + 1 }, (_, i) => i);
          expectSound(store.near, every, [...freshShapes, ...every.slice(0, end).map((i) => store.near.shapeAt(i))]);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("answers both ways on ordinary histories (the check is not vacuous)", async () => {
    const hash = await loadHasher();
    const steps = Array.from({ length: 20 }, (_, i) => ({
      tool: "lookup",
      args: { key: `k${i}` },
      result: `{"key":"k${i}","value":${i}}`,
    }));
    const store = new ObservationStore(hash);
    store.update(history(steps));
    const { near } = store;
    const end = store.observations.length;
    expect(near.mayRepeat("lookup", argsShapeOf({ key: "k20" }), end)).toBe(false);
    // k19 is among the last 12 lookups, k2 no longer is.
    expect(near.mayRepeat("lookup", argsShapeOf({ key: "k19" }), end)).toBe(true);
    expect(near.mayRepeat("lookup", argsShapeOf({ key: "k2" }), end)).toBe(false);
    // The newest call does not match itself; a call without structured values is always compared.
    expect(near.mayRepeat("lookup", near.shapeAt(end - 1), end - 1)).toBe(false);
    expect(near.mayRepeat("lookup", argsShapeOf({}), end)).toBe(true);
    // Far back, the counts of the last calls do not cover what a scan visits: it must scan.
    expect(near.mayRepeat("lookup", near.shapeAt(2), 5)).toBe(true);
    expect(near.similarBefore("lookup", NO_KEY, near.shapeAt(2), 5)).toEqual([2]);
    // The newest call's near repeat 12 calls back (a field added, the same result) is among those its own scan visits.
    const twelveBack = [...steps.slice(0, 19), { ...steps[7]!, args: { key: "k7", page: 2 } }];
    const again = new ObservationStore(hash);
    again.update(history(twelveBack));
    expect(again.near.mayRepeat("lookup", again.near.shapeAt(19), 19)).toBe(true);
    expect(again.near.nearRepeatOf(19)).toBe(7);
  });

  it("finds the same near repeat of every call as a scan of every candidate", async () => {
    const hash = await loadHasher();
    await fc.assert(
      fc.property(
        fc.array(fc.oneof(nearRepeatStep, keyedReadStep), { minLength: 1, maxLength: 45, size: "max" }),
        fc.boolean(),
        (steps, grow) => {
          const messages = history(steps);
          const store = new ObservationStore(hash);
          // Grown one message at a time, as live, or rebuilt at once, as a replay or a restored thread.
          for (let k = grow ? 1 : messages.length; k <= messages.length; k++) {
            store.update(messages.slice(0, k));
            const full = new FullScan(store.observations);
            for (let i = 0; i < store.observations.length; i++)
              expect(store.near.nearRepeatOf(i)).toBe(full.nearRepeatOf(i));
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("arguments already normal", () => {
  const text = fc.oneof(
    fc.string(),
    fc.string({ unit: fc.constantFrom("a", "Z", "1", " ", "  ", "\t", "\n", "#", "//", "\u00a0", "\u00c9", "-") }),
  );

  it("are the text normalising would give: it need not run", () => {
    fc.assert(
      fc.property(text, (t) => {
        if (ALREADY_NORMAL.test(t)) expect(normaliseText(t)).toBe(t);
      }),
      { numRuns: 2000 },
    );
    expect(ALREADY_NORMAL.test("k10")).toBe(true);
    expect(ALREADY_NORMAL.test("src/a.py --x=1")).toBe(true);
    for (const t of ["A", "a  b", " a", "a ", "a\tb", "a\nb", "\u00c9"]) expect(ALREADY_NORMAL.test(t)).toBe(false);
  });
});

describe("ObservationStore.answeredWith", () => {
  it("counts the answered calls with the same tool and normalised arguments, with and without a delta override", async () => {
    const hash = await loadHasher();
    const overrides = { read_file: makeSetMembershipDelta("items") };
    await fc.assert(
      fc.property(fc.array(nearRepeatStep, { minLength: 1, maxLength: 30 }), fc.boolean(), (steps, override) => {
        const store = new ObservationStore(hash, override ? { deltaOverrides: overrides } : {});
        const list = store.update(history(steps));
        const keys = new Set(list.map((o) => o.argsKey));
        for (const key of keys) expect(store.answeredWith(key)).toBe(list.filter((o) => o.argsKey === key).length);
        expect(store.answeredWith("read_file#0000000000000000")).toBe(0);
      }),
      { numRuns: 100 },
    );
  });
});
