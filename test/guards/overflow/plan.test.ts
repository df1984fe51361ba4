import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { groupsOf, lastAiGroup, planShrink, type PlanEntry } from "../../../src/guards/overflow/plan.js";

const SIZES = { largeTokens: 1000, noteTokens: (groups: number) => 60 + 20 * Math.ceil(groups / 4) };

/** A request as the planner sees it: turns of a user message or an AI message with its results. */
const entriesArb = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant("human" as const), tokens: fc.integer({ min: 5, max: 3000 }) }),
      fc.record({
        kind: fc.constant("ai" as const),
        tokens: fc.integer({ min: 5, max: 2000 }),
        results: fc.array(fc.integer({ min: 5, max: 6000 }), { maxLength: 4 }),
      }),
    ),
    { minLength: 1, maxLength: 40 },
  )
  .map((turns) => {
    const kinds: PlanEntry["kind"][] = [];
    const tokens: number[] = [];
    for (const turn of turns) {
      kinds.push(turn.kind);
      tokens.push(turn.tokens);
      if (turn.kind === "ai") {
        for (const t of turn.results) {
          kinds.push("tool");
          tokens.push(t);
        }
      }
    }
    const groups = groupsOf(kinds);
    const latestUser = kinds.lastIndexOf("human");
    return kinds.map<PlanEntry>((kind, i) => ({
      kind,
      tokens: tokens[i]!,
      fixed: i === latestUser,
      group: groups[i]!,
      stubTokens: Math.min(tokens[i]!, 90),
      ...(kind === "tool" ? { previewTokens: Math.min(tokens[i]!, 504) } : {}),
    }));
  });

describe("planShrink", () => {
  it("keeps pairing, the fixed entries and the last AI group, and reaches the target when it says it does", () => {
    fc.assert(
      fc.property(
        entriesArb,
        fc.integer({ min: 0, max: 40_000 }),
        fc.integer({ min: 0, max: 3000 }),
        (entries, target, fixedTokens) => {
          const plan = planShrink(entries, fixedTokens, target, SIZES);
          const final = entries.map((e, i) =>
            plan.actions[i] === "drop"
              ? 0
              : plan.actions[i] === "stub"
                ? e.stubTokens
                : plan.actions[i] === "preview"
                  ? e.previewTokens!
                  : e.tokens,
          );
          const groupsIn = ([from, to]: [number, number]) => new Set(entries.slice(from, to).map((e) => e.group)).size;
          const notes = plan.droppedSpans.reduce((sum, span) => sum + SIZES.noteTokens(groupsIn(span)), 0);
          expect(plan.after).toBe(fixedTokens + final.reduce((a, b) => a + b, 0) + notes);
          expect(plan.fits).toBe(plan.after <= target);
          if (plan.before <= target) expect(plan.actions.every((a) => a === undefined)).toBe(true);

          const lastAi = entries.map((e) => e.kind).lastIndexOf("ai");
          entries.forEach((e, i) => {
            if (e.fixed) expect(plan.actions[i]).toBeUndefined();
            if (plan.actions[i] === "preview") expect(e.kind === "tool" && e.tokens > SIZES.largeTokens).toBe(true);
            if (lastAi >= 0 && e.group === entries[lastAi]!.group) expect(plan.actions[i]).not.toBe("drop");
          });
          // A group goes whole or not at all: an AI message is never dropped without its results.
          const dropped = new Map<number, boolean[]>();
          entries.forEach((e, i) =>
            dropped.set(e.group, [...(dropped.get(e.group) ?? []), plan.actions[i] === "drop"]),
          );
          for (const flags of dropped.values()) expect(new Set(flags).size).toBe(1);
          // Spans cover exactly the dropped entries.
          const inSpans = new Set(
            plan.droppedSpans.flatMap(([from, to]) => Array.from({ length: to - from }, (_, k) => from + k)),
          );
          entries.forEach((_, i) => expect(inSpans.has(i)).toBe(plan.actions[i] === "drop"));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("previews the oldest large results first, and stubs or drops only once previews are not enough", () => {
    fc.assert(
      fc.property(entriesArb, fc.integer({ min: 0, max: 40_000 }), (entries, target) => {
        const plan = planShrink(entries, 0, target, SIZES);
        const lastGroup = lastAiGroup(entries);
        const older = (i: number) => entries[i]!.group !== lastGroup;
        const candidates = entries.flatMap((e, i) =>
          !e.fixed && e.kind === "tool" && e.tokens > SIZES.largeTokens && older(i) ? [i] : [],
        );
        const previewedOrMore = candidates.map((i) => plan.actions[i] !== undefined);
        // Once a candidate is left alone, no later candidate is shortened in phase 1.
        const firstLeft = previewedOrMore.indexOf(false);
        if (firstLeft >= 0) expect(previewedOrMore.slice(firstLeft).every((x) => !x)).toBe(true);
        const later = plan.actions.some((a, i) => older(i) && (a === "stub" || a === "drop"));
        if (later) expect(previewedOrMore.every(Boolean)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("shortens the latest turn's results last: only once every older group that may go is gone", () => {
    fc.assert(
      fc.property(
        entriesArb,
        fc.integer({ min: 0, max: 40_000 }),
        fc.integer({ min: 0, max: 3000 }),
        (entries, target, fixedTokens) => {
          const plan = planShrink(entries, fixedTokens, target, SIZES);
          const lastGroup = lastAiGroup(entries);
          const latestTouched = entries.some((e, i) => e.group === lastGroup && plan.actions[i] !== undefined);
          if (!latestTouched) return;
          entries.forEach((e, i) => {
            if (e.group === lastGroup || e.fixed) return;
            const droppable = !entries.some((o) => o.group === e.group && o.fixed);
            expect(plan.actions[i], `entry ${i}`).toBe(
              droppable ? "drop" : e.stubTokens < e.tokens ? "stub" : plan.actions[i],
            );
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it("groups an AI message with the results after it; a result with no AI message before it stands alone", () => {
    expect(groupsOf(["tool", "human", "ai", "tool", "tool", "ai", "human", "tool"])).toEqual([0, 1, 2, 2, 2, 3, 4, 5]);
  });
});
