import { createAgent, type AgentMiddleware } from "langchain";
import { createDeepAgent } from "deepagents";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ScriptedChatModel } from "../src/testing/index.js";
import { mirrorHooks } from "./passThrough.js";
import { TakeTurns } from "./takeTurns.js";
import { fmt, medianInterval, verdict } from "./timing.js";

export const STEPS = 200;

export type AgentKind = "createAgent" | "createDeepAgent";

type Config = "bare" | "passThrough" | "guarded";

/** The model and tool of a scripted `steps`-step run (one tool call per step, no usage_metadata); the tool ends each turn. */
export function lookupScript(steps: number, endTurn: () => Promise<void>) {
  const model = new ScriptedChatModel({
    turns: [
      ...Array.from({ length: steps }, (_, i) => ({ toolCalls: [{ name: "lookup", args: { key: `k${i}` } }] })),
      { text: "done" },
    ],
  });
  const lookup = tool(
    async ({ key }: { key: string }) => {
      await endTurn();
      return JSON.stringify({ key, value: key.length });
    },
    { name: "lookup", description: "look a key up", schema: z.object({ key: z.string() }) },
  );
  return { model, tools: [lookup] };
}

function scriptedAgent(kind: AgentKind, middleware: AgentMiddleware[], endTurn: () => Promise<void>, steps: number) {
  const { model, tools } = lookupScript(steps, endTurn);
  return kind === "createAgent"
    ? createAgent({ model, tools, middleware })
    : createDeepAgent({ model, tools, middleware });
}

/**
 * Runs one agent per config side by side, a step each in turn (see TakeTurns); microseconds each.
 * Throws unless every run took its 200 steps to the script's end: a run a guard stopped early
 * would look cheap.
 */
async function timeSideBySide<C extends string>(
  kind: AgentKind,
  configs: Record<C, () => AgentMiddleware[]>,
  order: C[],
  steps: number,
): Promise<Record<C, number>> {
  const turns = new TakeTurns(order.length);
  const agents = order.map((config, i) => scriptedAgent(kind, configs[config](), () => turns.handOver(i), steps));
  await Promise.all(
    agents.map((agent, i) =>
      turns.run(i, async () => {
        const { messages } = (await agent.invoke(
          { messages: [new HumanMessage("go")] },
          { recursionLimit: 10_000 },
        )) as { messages: BaseMessage[] };
        const answered = messages.filter(ToolMessage.isInstance).length;
        if (messages.at(-1)?.content !== "done" || answered !== steps) {
          throw new Error(
            `${kind} (${order[i]}) ended after ${answered} of ${steps} steps: ${String(messages.at(-1)?.content).slice(0, 200)}`,
          );
        }
      }),
    ),
  );
  return Object.fromEntries(order.map((config, i) => [config, turns.busy[i]!])) as Record<C, number>;
}

const ROUNDS = 11;
/**
 * Steps each config runs in the measured rounds, at least: a short run's rounds are many, so that
 * every row's median rests on as many steps as a 200-step run's 11 rounds (a 20-step round alone
 * spreads from 0.9× to 1.5×).
 */
const MEASURED_STEPS = ROUNDS * STEPS;

/**
 * Steps each config runs in a row against a bare agent, where the stack's target is judged. The
 * median of 111 rounds of 20 steps could move by ±0.05× by chance (its 95% bootstrap interval,
 * which every such row reports), as wide as the margin it is judged on; over 1,001 rounds by ±0.01×.
 */
const VERDICT_STEPS = 20_000;

/** How many rounds a run of `steps` steps is measured over, for `measuredSteps` steps in all. */
const roundsFor = (steps: number, measuredSteps: number) => Math.max(ROUNDS, Math.ceil(measuredSteps / steps) | 1);

/** A warm-up round, then `roundsFor(steps, measuredSteps)` rounds of `configs` side by side, the order rotated each round. */
async function rounds<C extends string>(
  kind: AgentKind,
  configs: Record<C, () => AgentMiddleware[]>,
  steps = STEPS,
  measuredSteps = MEASURED_STEPS,
): Promise<Record<C, number>[]> {
  const names = Object.keys(configs) as C[];
  await timeSideBySide(kind, configs, names, steps);
  const measured: Record<C, number>[] = [];
  for (let round = 0; round < roundsFor(steps, measuredSteps); round++) {
    measured.push(
      await timeSideBySide(
        kind,
        configs,
        names.map((_, i) => names[(i + round) % names.length]!),
        steps,
      ),
    );
  }
  return measured;
}

export const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/**
 * What a user pays for `guards`: a 200-step run with them against the same agent without any
 * middleware, side by side, a step each in turn, over VERDICT_STEPS steps; the median of the
 * rounds' ratios. Appends two
 * table rows; `target` is the largest acceptable ratio. Each of `beside` (a row label and its
 * middleware) takes the same turns as a further agent, with a row of its own ÷ bare: rows to
 * compare must share rounds, since measured in rounds of their own such rows moved by 0.1× with
 * their place in the run.
 */
export async function againstBareRows(
  label: string,
  kind: AgentKind,
  guards: () => AgentMiddleware[],
  target: number,
  rows: string[],
  steps = STEPS,
  beside: Record<string, () => AgentMiddleware[]> = {},
): Promise<AgainstBare> {
  const configs: Record<string, () => AgentMiddleware[]> = { bare: () => [], guarded: guards, ...beside };
  const measured = await rounds(kind, configs, steps, VERDICT_STEPS);
  const inOrder = measured.map((r) => r.guarded! / r.bare!);
  const ratios = [...inOrder].sort((a, b) => a - b);
  const ratio = medianOf(ratios);
  const [bare, guarded] = [medianOf(measured.map((r) => r.bare!)), medianOf(measured.map((r) => r.guarded!))];
  const [low, high] = medianInterval(ratios);
  const spread = `95% interval of the median ${low.toFixed(3)}–${high.toFixed(3)}×; rounds from ${ratios[0]!.toFixed(3)}× to ${ratios.at(-1)!.toFixed(3)}× over ${ratios.length} rounds`;
  rows.push(
    `| ${steps}-step ${kind}: bare / with ${label} | ${fmt(bare / steps)} / ${fmt(guarded / steps)} per step | | |`,
  );
  rows.push(
    `| ${kind}: ${label} ÷ bare, per step | ${ratio.toFixed(3)}× (${fmt(((ratio - 1) * bare) / steps)} per step; ${spread}) | ≤ ${target.toFixed(2)}× | ${verdict(ratio <= target)} |`,
  );
  for (const other of Object.keys(beside)) {
    const ratio = medianOf(measured.map((r) => r[other]! / r.bare!));
    rows.push(
      `| … in the same rounds, ${other} ÷ bare | ${ratio.toFixed(3)}× (${fmt(((ratio - 1) * bare) / steps)} per step) | | |`,
    );
  }
  return { ratio, addedPerStep: ((ratio - 1) * bare) / steps, inOrder };
}

/** The median ratio of a side-by-side run, and what the guards add per step (µs) at that ratio. */
export interface AgainstBare {
  ratio: number;
  addedPerStep: number;
  /** Each round's ratio, in the order the rounds ran. */
  inOrder: number[];
}

/**
 * What `guards` add to a 200-step run beyond pass-through middlewares with exactly their hooks.
 * Bare, pass-through and guarded agents run side by side, a step each in turn, so that all three
 * meet the same machine; 11 rounds with the order rotated, the median round kept. Appends four
 * table rows.
 */
export async function overheadRows(
  label: string,
  kind: AgentKind,
  guards: () => AgentMiddleware[],
  target: number,
  rows: string[],
): Promise<void> {
  const measured = await rounds<Config>(kind, {
    bare: () => [],
    passThrough: () => guards().map(mirrorHooks),
    guarded: guards,
  });
  const ratios = measured.map((r) => r.guarded / r.passThrough - 1).sort((a, b) => a - b);
  const beyond = medianOf(ratios);
  const [bare, pass, guarded] = (["bare", "passThrough", "guarded"] as const).map((config) =>
    medianOf(measured.map((r) => r[config])),
  ) as [number, number, number];
  const spread = `${(ratios[0]! * 100).toFixed(1)}% to ${(ratios.at(-1)! * 100).toFixed(1)}% over ${ratios.length} rounds`;
  rows.push(`| 200-step ${kind}: bare | ${fmt(bare / STEPS)} per step | | |`);
  rows.push(
    `| … with pass-through hooks of the same kinds | ${fmt(pass / STEPS)} per step (${(pass / bare).toFixed(3)}× bare) | | |`,
  );
  rows.push(`| … with ${label} | ${fmt(guarded / STEPS)} per step (${(guarded / bare).toFixed(3)}× bare) | | |`);
  rows.push(
    `| ${label} beyond pass-through hooks | ${(beyond * 100).toFixed(1)}% (${fmt((beyond * pass) / STEPS)} per step; ${spread}) | ≤ ${target * 100}% | ${verdict(beyond <= target)} |`,
  );
}
