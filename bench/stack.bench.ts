import { recommendedGuards } from "../src/index.js";
import { againstBareRows } from "./agentOverhead.js";

/** Issue 11: what a step costs with the recommended stack against the same agent without middleware. */
export default async function stackBench(): Promise<string> {
  const rows = ["| measurement | result | target | |", "|---|---|---|---|"];
  // By design the runaway guard stops a 200-step loop on a one-line question; with its thresholds
  // out of reach it still does all its accounting every step, like every other guard here on a
  // loop that never repeats a call. A run that ends before its 200 steps fails the bench.
  const guards = () => recommendedGuards({ runaway: { warnAt: 1e4, blockAt: 1e4, stopAt: 1e4 } });
  await againstBareRows("the recommended stack", "createAgent", () => guards().agent, 1.1, rows);
  await againstBareRows("the recommended stack", "createDeepAgent", () => guards().deepAgent, 1.1, rows);
  return `## The recommended stack against a bare agent\n\n${rows.join("\n")}`;
}
