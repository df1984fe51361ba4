import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ProgressAwareLoopGuardMiddleware } from "../../../src/index.js";
import { buildObservations, type DeltaFunction, type ToolCallObservation } from "../../../src/observe.js";
import { loadHasher } from "../../../src/observe/hash.js";
import type { CallDecision } from "../../../src/core/decision.js";
import { callKeyOf, groupsWholeTool } from "../../../src/observe/store.js";
import { pendingToolCalls } from "../../../src/core/messages.js";
import { changesStateByName, ERROR_WEIGHT } from "../../../src/guards/progress/noProgress.js";
import { history, type Step } from "../../helpers/history.js";

const FLOOR = 0.02;
const changesState = changesStateByName(new Set(), new Set());

/**
 * The chain rule of decideNoProgress spelled out the slow way: walk back over every result until
 * a lasting change of the world by another call (a change whose call was later repeated in vain
 * is looked past, up to 8 of them), or an earlier user turn where the call did not fail (every
 * user message here asks "again", so each is about the call). A chain
 * cut that way starts with a baseline that is not wasted, unless it is a call that may change
 * the world and repeated the result before the change. The guard visits only the call's own occurrences; both must agree on every
 * history. A call answered without running is no result: only the guard's own refusal of the
 * call in this user turn counts (1), anything else's is skipped, and a chain where nothing ran
 * wasted nothing. (No near-duplicates here: the
 * arguments differ by a changed value or not at all, and every result has words.)
 */
function wastedByWalkingBack(observations: readonly ToolCallObservation[], userTurn: number, key: string): number {
  const stale = (o: ToolCallObservation) =>
    (o.sameArgsRepeatCount > 0 || groupsWholeTool(o.callKey)) && o.newInformationDelta <= FLOOR;
  const wasted = (o: ToolCallObservation) => o.ran && stale(o);
  const worldChange = (o: ToolCallObservation) =>
    o.ran && o.status === "success" && o.toolName !== "think" && changesState(o.toolName) && !stale(o);
  const repeatedInVain = (i: number) =>
    observations.slice(i + 1).some((later) => later.callKey === observations[i]!.callKey && wasted(later));
  const weight = (o: ToolCallObservation) => (o.status === "error" ? ERROR_WEIGHT : 1);
  let changedAt = -1;
  let undone = 0;
  for (let i = observations.length - 1; i >= 0; i--) {
    const o = observations[i]!;
    if (o.callKey === key || !worldChange(o)) continue;
    if (!repeatedInVain(i)) {
      changedAt = i;
      break;
    }
    if (++undone >= 8) break;
  }
  let total = 0;
  let oldest: number | undefined;
  let reachedBaseline = false;
  let anyRan = false;
  for (let i = observations.length - 1; i >= 0 && i >= changedAt; i--) {
    const o = observations[i]!;
    if (o.callKey !== key) continue;
    const own = o.answeredBy?.guard === "ProgressAwareLoopGuardMiddleware" && o.userTurn === userTurn;
    if (!o.ran && !own) continue;
    if (o.userTurn !== userTurn && o.status !== "error") break;
    oldest = i;
    anyRan ||= o.ran;
    if (!o.ran) total += 1;
    else if (stale(o)) total += weight(o);
    else {
      reachedBaseline = true;
      break;
    }
  }
  if (!anyRan) return 0;
  if (!reachedBaseline && oldest !== undefined && wasted(observations[oldest]!)) {
    const o = observations[oldest]!;
    const previous = observations
      .slice(0, oldest)
      .reverse()
      .find((p) => p.callKey === o.callKey);
    const unchanged =
      previous !== undefined && previous.status === o.status && previous.resultFingerprint === o.resultFingerprint;
    // A read after a change is always a baseline; a call that acts is one unless it answered as before.
    if (!unchanged || !changesState(o.toolName)) total -= weight(o);
  }
  return total;
}

const step = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      tool: fc.constantFrom("read_file", "edit_file", "run_tests", "think"),
      args: fc.constantFrom({}, { n: 1 }, { n: 2 }),
      result: fc.constantFrom("same", "other", "Error: boom"),
      status: fc.constantFrom<"success" | "error">("success", "error"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ human: fc.constant("again") }) },
) as fc.Arbitrary<Step>;

/** A refusal written by a guard (the progress guard itself, or another), as the observation store recognises one. */
function refusal(ai: AIMessage, guard: string): ToolMessage {
  const call = ai.tool_calls![0]!;
  return new ToolMessage({
    content: "Not run",
    tool_call_id: call.id!,
    name: call.name,
    response_metadata: { harness_kit: { guard, action: "directive" } },
  });
}

/** A novelty function for edit_file: nothing new when an earlier edit returned the same text. */
const seenText: DeltaFunction = (view, earlier) => (earlier.some((e) => e.text === view.text) ? 0 : 1);

describe("ProgressAwareLoopGuard chain index", () => {
  it.each([
    ["default novelty", undefined],
    ["a novelty function grouping every edit_file call", { edit_file: seenText }],
  ])("agrees with walking back over the whole history, growing one step at a time (%s)", async (_, deltaOverrides) => {
    const hash = await loadHasher();
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 40 }),
        fc.array(fc.constantFrom(undefined, "ProgressAwareLoopGuardMiddleware", "X"), { maxLength: 40 }),
        async (steps, refusals) => {
          const guard = new ProgressAwareLoopGuardMiddleware({ progressFloor: FLOOR, deltaOverrides });
          let messages: BaseMessage[] = history([]);
          for (const [i, s] of steps.entries()) {
            const [first, ...results] = history([s]).slice(1);
            if (!(first instanceof AIMessage)) {
              messages = [...messages, first!];
              continue;
            }
            // The same growing history every step, so the guard's indexes update incrementally as in a live run.
            messages = [...messages, first];
            const [call] = pendingToolCalls(messages);
            const [{ decision }] = (await guard.evaluate(messages, [call!])) as [CallDecision];
            const userTurn = messages.filter((m) => m.type === "human").length;
            const key = callKeyOf(call!.name, call!.args, hash, deltaOverrides);
            const expected =
              call!.name === "think"
                ? 0
                : wastedByWalkingBack(await buildObservations(messages, { deltaOverrides }), userTurn, key);
            const wasted = decision.action === "allow" ? 0 : (decision.detail as { wasted: number }).wasted;
            expect(wasted).toBe(expected >= 1 ? expected : 0);
            const refusedBy = refusals[i];
            messages = refusedBy ? [...messages, refusal(first, refusedBy)] : [...messages, ...results];
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
