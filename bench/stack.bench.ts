import { recommendedGuards } from "../src/index.js";
import { overheadRows } from "./agentOverhead.js";

export default async function stackBench(): Promise<string> {
  const rows = ["| measurement | result | target | |", "|---|---|---|---|"];
  // By design the runaway guard stops a run past 40× its input, which a 200-step loop on a
  // one-line question is. With its thresholds out of reach it still does all its accounting
  // every step, like every other guard here on a loop that never repeats a call.
  const guards = () => recommendedGuards({ runaway: { warnAt: 1e4, blockAt: 1e4, stopAt: 1e4 } });
  await overheadRows("the recommended stack", "createAgent", () => guards().agent, 0.1, rows);
  await overheadRows("the recommended stack", "createDeepAgent", () => guards().deepAgent, 0.05, rows);
  return `## The recommended stack\n\n${rows.join("\n")}`;
}
