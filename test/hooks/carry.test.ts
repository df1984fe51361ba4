import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { mergeCarried, type Carried } from "../../src/hooks/carry.js";

/** The reducer's contract, by a reference that rebuilds every time: replace an entry by key in place, or append it. */
function reference(current: readonly Carried[], update: readonly Carried[]): string[] {
  const out = current.map((entry) => entry.id);
  const values = new Map(current.map((entry) => [entry.id, String(entry.content)]));
  for (const entry of update) {
    if (!values.has(entry.id)) out.push(entry.id);
    values.set(entry.id, String(entry.content));
  }
  return out.map((id) => `${id}=${values.get(id)}`);
}

const shown = (entries: readonly Carried[]) => entries.map((entry) => `${entry.id}=${String(entry.content)}`);
const entry = (id: string, content: string) => new HumanMessage({ id, content }) as Carried;

describe("the carry channel's reducer", () => {
  it("equals a rebuild from scratch, for any updates of any earlier version (forks and retries included)", () => {
    const update = fc.array(fc.tuple(fc.constantFrom("a", "b", "c", "d", "e", "f"), fc.string({ maxLength: 3 })), { maxLength: 5 });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), update), { maxLength: 12 }), (steps) => {
        const versions: Carried[][] = [[]];
        for (const [pick, pairs] of steps) {
          const base = versions[pick % versions.length]!;
          const next = mergeCarried(base, pairs.map(([id, content]) => entry(id, content)));
          expect(shown(next)).toEqual(reference(base, pairs.map(([id, content]) => entry(id, content))));
          versions.push(next);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("never duplicates a key when versions forked and the shared index points elsewhere", () => {
    const v1 = mergeCarried([], [entry("a", "1")]);
    const v2 = mergeCarried(v1, [entry("b", "1")]);
    const v3 = mergeCarried(v1, [entry("c", "1")]);
    mergeCarried(v3, [entry("b", "2")]); // the shared index now says b is third
    expect(shown(mergeCarried(v2, [entry("b", "3")]))).toEqual(["a=1", "b=3"]);
  });
});
