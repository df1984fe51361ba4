import { GraphRecursionError } from "@langchain/langgraph";

/**
 * How a run ends under a given `recursionLimit`: `finished` says whether it got where it should
 * (the caller decides, e.g. "the script's final answer, every tool call run"), or "recursion"
 * when LangGraph gave up first. Any other ending throws, so that a guard stopping the run is
 * never mistaken for a step count.
 */
export type Outcome = "finished" | "recursion";

export async function outcomeAt(
  run: (recursionLimit: number | undefined) => Promise<boolean>,
  recursionLimit?: number,
): Promise<Outcome> {
  try {
    if (await run(recursionLimit)) return "finished";
  } catch (error) {
    if (error instanceof GraphRecursionError) return "recursion";
    throw error;
  }
  throw new Error(`the run ended without finishing (recursionLimit ${recursionLimit ?? "default"})`);
}

/**
 * The smallest `recursionLimit` at which `run` finishes, found by walking up from 1: the number
 * of graph steps (super-steps) the run takes.
 */
export async function smallestLimit(
  run: (recursionLimit: number | undefined) => Promise<boolean>,
  upTo = 200,
): Promise<number> {
  for (let limit = 1; limit <= upTo; limit++) if ((await outcomeAt(run, limit)) === "finished") return limit;
  throw new Error(`the run did not finish within recursionLimit ${upTo}`);
}
