import { recommendedGuards } from "../src/index.js";
import { overheadRows } from "./agentOverhead.js";

export default async function stackBench(): Promise<string> {
  const rows = ["| measurement | result | target | |", "|---|---|---|---|"];
  // By design the runaway guard stops a run past 40× its input, which a 200-step loop on a
  // one-line question is: here it only observes, doing all its work, so every step runs.
  const guards = () => recommendedGuards({ runaway: { observeOnly: true } });
  await overheadRows("the recommended stack", "createAgent", () => guards().agent, 0.1, rows);
  await overheadRows("the recommended stack", "createDeepAgent", () => guards().deepAgent, 0.05, rows);
  return `## The recommended stack\n\n${rows.join("\n")}`;
}
