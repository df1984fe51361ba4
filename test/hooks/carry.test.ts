import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { mergeCarried, type Carried } from "../../src/hooks/carry.js";

const entry = (id: string) => new AIMessage({ id, content: id }) as Carried;
/** A carried summary: what the carry ends with, naming the summary its removals lead to. */
const summary = (id: string) =>
  new HumanMessage({
    id: `summary:${id}`,
    content: "summary",
    additional_kwargs: { lc_source: "summarization" },
  }) as Carried;
const ids = (entries: readonly Carried[]) => entries.map((e) => e.id);

describe("the carry channel's reducer", () => {
  const write = fc.tuple(
    fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f"), { maxLength: 5 }),
    fc.constantFrom("s1", "s2", "s3"),
  );
  const updateOf = ([removed, name]: [string[], string]) => [...removed.map(entry), summary(name)];

  it("keeps every removed message once, in the order first written, and ends with the newest summary, for any writes to any earlier version", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), write), { maxLength: 12 }), (steps) => {
        const versions: Carried[][] = [[]];
        for (const [pick, w] of steps) {
          const base = versions[pick % versions.length]!;
          const next = mergeCarried(base, updateOf(w));
          const baseRemoved = ids(base).slice(0, -1);
          const expected = [...new Set([...baseRemoved, ...w[0]])];
          expect(ids(next)).toEqual([...expected, `summary:${w[1]}`]);
          versions.push(next);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("is idempotent: a replayed or retried write changes nothing", () => {
    fc.assert(
      fc.property(fc.array(write, { maxLength: 6 }), write, (earlier, last) => {
        const base = earlier.reduce<Carried[]>((carry, w) => mergeCarried(carry, updateOf(w)), []);
        const once = mergeCarried(base, updateOf(last));
        expect(ids(mergeCarried(once, updateOf(last)))).toEqual(ids(once));
      }),
    );
  });

  it("gives way to the first write on a carry of older versions (a copy of every message, no summary at its end)", () => {
    const legacy = [entry("a"), entry("b"), entry("tool:x:1")];
    expect(ids(mergeCarried(legacy, [entry("a"), entry("b"), summary("s1")]))).toEqual(["a", "b", "summary:s1"]);
    expect(mergeCarried(legacy, [])).toBe(legacy);
  });
});
