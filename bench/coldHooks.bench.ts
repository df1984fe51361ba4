// What each part of the stack costs when LangGraph's work comes between our hooks (cold caches):
// each guard alone, the batch-guard machinery alone, and layers that only pass the call on.
// `npm run bench -- coldHooks`.
import type { AgentMiddleware } from "langchain";
import { ALLOW } from "../src/core/decision.js";
import { batchGuard } from "../src/hooks/batchGuard.js";
import { recommendedGuards } from "../src/index.js";
import { ComposedGuards } from "../src/stack/composeGuards.js";
import { hooksAlonePerStep } from "./hooksAlone.js";
import { fmt } from "./timing.js";

const TURNS = 20;
const RUNS = 12;

const stack = () =>
  recommendedGuards({ runaway: { warnAt: 1e4, blockAt: 1e4, stopAt: 1e4 } }).agent[0] as unknown as ComposedGuards;

/** A batch guard that allows every call: the per-call machinery every batch guard runs, and no judgement. */
function allowingBatchGuard(name: string) {
  const hooks = batchGuard({
    guard: name,
    exitBehavior: "directive",
    observeOnly: false,
    decide: (_messages, batch) => batch.map((call) => ({ call, decision: ALLOW })),
  });
  return { name, wrapToolCall: hooks.wrapToolCall, wrapModelCall: hooks.wrapModelCall };
}

const passing = {
  name: "pass",
  wrapToolCall: (r: unknown, h: (r: unknown) => unknown) => h(r),
  wrapModelCall: (r: unknown, h: (r: unknown) => unknown) => h(r),
};

const composed = (members: readonly object[]) => new ComposedGuards("measured", members as AgentMiddleware[]);

export default async function coldHooksBench(): Promise<string> {
  const variants: [string, () => unknown][] = [
    ["the whole stack", stack],
    ...stack().members.map((m): [string, () => unknown] => [
      `${m.name} alone`,
      () => composed(stack().members.filter((other) => other.name === m.name)),
    ]),
    ["eight layers that pass the call on", () => composed(Array.from({ length: 8 }, () => passing))],
    ["one batch guard that allows every call", () => composed([allowingBatchGuard("A")])],
    ["four of them", () => composed(["A", "B", "C", "D"].map(allowingBatchGuard))],
    // The same guard without the composed layer, whose first call on each new stack checks the composition.
    ["one of them, not composed", () => allowingBatchGuard("A")],
  ];
  const rows = ["| our hooks, cold, per step over no hooks | µs |", "|---|---|"];
  for (const [label, make] of variants)
    rows.push(`| ${label} | ${fmt(await hooksAlonePerStep(TURNS, make, RUNS, true))} |`);
  return `## Our hooks with LangGraph's work between them, ${TURNS} tool turns (a new stack each run)\n\n${rows.join("\n")}`;
}
