import { createAgent, type AgentMiddleware } from "langchain";
import { createDeepAgent } from "deepagents";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ScriptedChatModel } from "../src/testing/index.js";
import { mirrorHooks } from "./passThrough.js";
import { fmt, nowMicros, verdict } from "./timing.js";

export const STEPS = 200;

export type AgentKind = "createAgent" | "createDeepAgent";

/** Wall time of one 200-step scripted run (one tool call per step, no usage_metadata). */
async function timeRun(kind: AgentKind, middleware: AgentMiddleware[]): Promise<number> {
  const model = new ScriptedChatModel({
    turns: [...Array.from({ length: STEPS }, (_, i) => ({ toolCalls: [{ name: "lookup", args: { key: `k${i}` } }] })), { text: "done" }],
  });
  const lookup = tool(async ({ key }: { key: string }) => JSON.stringify({ key, value: key.length }), {
    name: "lookup",
    description: "look a key up",
    schema: z.object({ key: z.string() }),
  });
  const agent = kind === "createAgent" ? createAgent({ model, tools: [lookup], middleware }) : createDeepAgent({ model, tools: [lookup], middleware });
  const start = nowMicros();
  await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 10_000 });
  return nowMicros() - start;
}

/**
 * What `guards` add to a 200-step run beyond pass-through middlewares with exactly their hooks:
 * bare, pass-through and guarded runs interleaved over 9 rounds, fastest of each kept (the work
 * is deterministic, so slower runs only add noise). Appends four table rows.
 */
export async function overheadRows(label: string, kind: AgentKind, guards: () => AgentMiddleware[], target: number, rows: string[]): Promise<void> {
  const configs: Record<"bare" | "passThrough" | "guarded", () => AgentMiddleware[]> = {
    bare: () => [],
    passThrough: () => guards().map(mirrorHooks),
    guarded: guards,
  };
  const names = Object.keys(configs) as (keyof typeof configs)[];
  const times = { bare: [] as number[], passThrough: [] as number[], guarded: [] as number[] };
  for (const name of names) await timeRun(kind, configs[name]()); // warm up
  for (let round = 0; round < 9; round++) for (const name of names) times[name].push(await timeRun(kind, configs[name]()));
  const [bare, pass, guarded] = names.map((name) => Math.min(...times[name])) as [number, number, number];
  const beyond = guarded / pass - 1;
  rows.push(`| 200-step ${kind}: bare | ${fmt(bare / STEPS)} per step | | |`);
  rows.push(`| … with pass-through hooks of the same kinds | ${fmt(pass / STEPS)} per step (${(pass / bare).toFixed(3)}× bare) | | |`);
  rows.push(`| … with ${label} | ${fmt(guarded / STEPS)} per step (${(guarded / bare).toFixed(3)}× bare) | | |`);
  rows.push(`| ${label} beyond pass-through hooks | ${(beyond * 100).toFixed(1)}% (${fmt((guarded - pass) / STEPS)} per step) | ≤ ${target * 100}% | ${verdict(beyond <= target)} |`);
}
