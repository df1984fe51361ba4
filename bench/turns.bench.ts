// Whether the guards' cost per step grows with the thread: the recommended stack against a bare
// createAgent at 20, 100 and 300 tool turns (no checkpointer: our code's time alone).
// `npm run bench -- turns`.
import { createAgent, type AgentMiddleware } from "langchain";
import { HumanMessage } from "@langchain/core/messages";
import { recommendedGuards } from "../src/index.js";
import { ComposedGuards } from "../src/stack/composeGuards.js";
import { againstBareRows, lookupScript, medianOf, type AgainstBare } from "./agentOverhead.js";
import { hooksAlonePerStep } from "./hooksAlone.js";
import { mirrorHooks } from "./passThrough.js";
import { fmt, verdict } from "./timing.js";

const TURNS = [20, 100, 300];

export default async function turnsBench(): Promise<string> {
  const rows = ["| measurement | result | target | |", "|---|---|---|---|"];
  // The runaway guard's thresholds out of reach, as in stack.bench.ts: it still does all its accounting.
  const guards = () => recommendedGuards({ runaway: { warnAt: 1e4, blockAt: 1e4, stopAt: 1e4 } }).agent;
  const beside = {
    // The same middleware with hooks that only pass every call on: the tool it offers and the
    // channel it declares too, none of our code between (what LangChain charges for the stack's shape).
    "its shape with hooks that only pass on (LangChain's own charge)": () => {
      const [composed, ...declarations] = guards();
      return [mirrorHooks(composed!, 0), ...declarations];
    },
    // Every step through every guard, as before the quiet path (src/stack/quietPath.ts).
    "the stack without its quiet path": () => {
      const [composed, ...declarations] = guards() as [ComposedGuards, ...AgentMiddleware[]];
      return [
        new ComposedGuards(composed.name, composed.members, { quietPath: false }) as unknown as AgentMiddleware,
        ...declarations,
      ];
    },
  };
  const measured: AgainstBare[] = [];
  for (const turns of TURNS)
    measured.push(await againstBareRows("the recommended stack", "createAgent", guards, 1.1, rows, turns, beside));
  // How many of a run's steps every guard vouched for (src/stack/quietPath.ts).
  const quiet = guards();
  const { model, tools } = lookupScript(TURNS[0]!, async () => {});
  await createAgent({ model, tools, middleware: quiet }).invoke(
    { messages: [new HumanMessage("go")] },
    { recursionLimit: 10_000 },
  );
  const taken = (quiet[0] as unknown as ComposedGuards).quietSteps;
  rows.push(
    `| steps of a ${TURNS[0]}-turn run on the quiet path | ${taken.tool} of ${TURNS[0]} tool calls, ${taken.model} of ${TURNS[0]! + 1} model calls | | |`,
  );
  const [first, last] = [measured[0]!, measured[measured.length - 1]!];
  // The first row is the process's first: V8 compiles code run once a step to optimised code only
  // after some thousands of steps. Whether its first rounds cost more, third by third:
  const third = Math.ceil(first.inOrder.length / 3);
  const thirds = [0, 1, 2].map((k) => medianOf(first.inOrder.slice(k * third, (k + 1) * third)).toFixed(3));
  rows.push(`| the ${TURNS[0]}-turn row's rounds by thirds, in the order they ran | ${thirds.join("× / ")}× | | |`);
  const growth = last.addedPerStep / first.addedPerStep;
  rows.push(
    `| what the stack adds per step, ${TURNS.at(-1)} ÷ ${TURNS[0]} tool turns | ${growth.toFixed(2)}× (${fmt(first.addedPerStep)} → ${fmt(last.addedPerStep)}) | ≤ 1.2× | ${verdict(growth <= 1.2)} |`,
  );
  // The same hooks outside the graph: our own code's time, warm and with LangGraph's work between them.
  const warm: number[] = [];
  for (const turns of TURNS) warm.push(await hooksAlonePerStep(turns, () => guards()[0], Math.ceil(16000 / turns)));
  const cold = await hooksAlonePerStep(TURNS[0]!, () => guards()[0], 20, true);
  rows.push(
    `| our hooks alone, outside the graph, warm: per step at ${TURNS.join(" / ")} tool turns | ${warm.map(fmt).join(" / ")} (${TURNS.at(-1)} ÷ ${TURNS[0]}: ${(warm.at(-1)! / warm[0]!).toFixed(2)}×) | | |`,
    `| … cold (a bare agent's run between hook calls), ${TURNS[0]} tool turns | ${fmt(cold)} per step, ${(cold / warm[0]!).toFixed(1)}× warm | | |`,
  );
  return `## The stack's cost per step as the thread grows\n\n${rows.join("\n")}`;
}
