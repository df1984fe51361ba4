import { createAgent, type AgentMiddleware } from "langchain";
import { createDeepAgent } from "deepagents";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ScriptedChatModel } from "../src/testing/index.js";
import { mirrorHooks } from "./passThrough.js";
import { TakeTurns } from "./takeTurns.js";
import { fmt, verdict } from "./timing.js";

export const STEPS = 200;

export type AgentKind = "createAgent" | "createDeepAgent";

type Config = "bare" | "passThrough" | "guarded";

/** One scripted 200-step agent (one tool call per step, no usage_metadata) whose tool ends each turn. */
function scriptedAgent(kind: AgentKind, middleware: AgentMiddleware[], endTurn: () => Promise<void>) {
  const model = new ScriptedChatModel({
    turns: [...Array.from({ length: STEPS }, (_, i) => ({ toolCalls: [{ name: "lookup", args: { key: `k${i}` } }] })), { text: "done" }],
  });
  const lookup = tool(
    async ({ key }: { key: string }) => {
      await endTurn();
      return JSON.stringify({ key, value: key.length });
    },
    { name: "lookup", description: "look a key up", schema: z.object({ key: z.string() }) },
  );
  return kind === "createAgent" ? createAgent({ model, tools: [lookup], middleware }) : createDeepAgent({ model, tools: [lookup], middleware });
}

/** Runs one agent per config side by side, a step each in turn (see TakeTurns); microseconds each. */
async function timeSideBySide(kind: AgentKind, configs: Record<Config, () => AgentMiddleware[]>, order: Config[]): Promise<Record<Config, number>> {
  const turns = new TakeTurns(order.length);
  const agents = order.map((config, i) => scriptedAgent(kind, configs[config](), () => turns.handOver(i)));
  await Promise.all(agents.map((agent, i) => turns.run(i, () => agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 10_000 }))));
  return Object.fromEntries(order.map((config, i) => [config, turns.busy[i]!])) as Record<Config, number>;
}

const ROUNDS = 11;

/**
 * What `guards` add to a 200-step run beyond pass-through middlewares with exactly their hooks.
 * Bare, pass-through and guarded agents run side by side, a step each in turn, so that all three
 * meet the same machine; 11 rounds with the order rotated, the median round kept. Appends four
 * table rows.
 */
export async function overheadRows(label: string, kind: AgentKind, guards: () => AgentMiddleware[], target: number, rows: string[]): Promise<void> {
  const configs: Record<Config, () => AgentMiddleware[]> = {
    bare: () => [],
    passThrough: () => guards().map(mirrorHooks),
    guarded: guards,
  };
  const names = Object.keys(configs) as Config[];
  await timeSideBySide(kind, configs, names); // warm up
  const rounds: Record<Config, number>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]!);
    rounds.push(await timeSideBySide(kind, configs, order));
  }
  const ratios = rounds.map((r) => r.guarded / r.passThrough - 1).sort((a, b) => a - b);
  const beyond = ratios[ROUNDS >> 1]!;
  const median = (config: Config) => rounds.map((r) => r[config]).sort((a, b) => a - b)[ROUNDS >> 1]!;
  const [bare, pass, guarded] = names.map(median) as [number, number, number];
  const spread = `${(ratios[0]! * 100).toFixed(1)}% to ${(ratios[ROUNDS - 1]! * 100).toFixed(1)}% over ${ROUNDS} rounds`;
  rows.push(`| 200-step ${kind}: bare | ${fmt(bare / STEPS)} per step | | |`);
  rows.push(`| … with pass-through hooks of the same kinds | ${fmt(pass / STEPS)} per step (${(pass / bare).toFixed(3)}× bare) | | |`);
  rows.push(`| … with ${label} | ${fmt(guarded / STEPS)} per step (${(guarded / bare).toFixed(3)}× bare) | | |`);
  rows.push(`| ${label} beyond pass-through hooks | ${(beyond * 100).toFixed(1)}% (${fmt((beyond * pass) / STEPS)} per step; ${spread}) | ≤ ${target * 100}% | ${verdict(beyond <= target)} |`);
}
