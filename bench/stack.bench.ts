import { createAgent, type AgentMiddleware } from "langchain";
import { createDeepAgent } from "deepagents";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { recommendedGuards } from "../src/index.js";
import { ScriptedChatModel } from "../src/testing/index.js";
import { mirrorHooks } from "./passThrough.js";
import { fmt, nowMicros, verdict } from "./timing.js";

const STEPS = 200;

function scriptedRun() {
  const model = new ScriptedChatModel({
    turns: [...Array.from({ length: STEPS }, (_, i) => ({ toolCalls: [{ name: "lookup", args: { key: `k${i}` } }] })), { text: "done" }],
  });
  const lookup = tool(async ({ key }: { key: string }) => JSON.stringify({ key, value: key.length }), {
    name: "lookup",
    description: "look a key up",
    schema: z.object({ key: z.string() }),
  });
  return { model, tools: [lookup] };
}

async function timeAgent(middleware: AgentMiddleware[]): Promise<number> {
  const { model, tools } = scriptedRun();
  const agent = createAgent({ model, tools, middleware });
  const start = nowMicros();
  await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 10_000 });
  return nowMicros() - start;
}

async function timeDeepAgent(middleware: AgentMiddleware[]): Promise<number> {
  const { model, tools } = scriptedRun();
  const agent = createDeepAgent({ model, tools, middleware });
  const start = nowMicros();
  await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 10_000 });
  return nowMicros() - start;
}

/** Bare, pass-through hooks of the same kinds, and the stack, interleaved over several rounds. */
async function compare(label: string, run: (m: AgentMiddleware[]) => Promise<number>, stack: () => AgentMiddleware[], target: number, rows: string[]) {
  const configs: Record<string, () => AgentMiddleware[]> = {
    bare: () => [],
    passThrough: () => stack().map(mirrorHooks),
    stack,
  };
  const times: Record<string, number[]> = { bare: [], passThrough: [], stack: [] };
  for (const make of Object.values(configs)) await run(make());
  for (let round = 0; round < 9; round++) for (const [name, make] of Object.entries(configs)) times[name]!.push(await run(make()));
  // The fastest of 9 interleaved runs: the work is deterministic, so slower runs only add noise.
  const [bare, pass, guarded] = (["bare", "passThrough", "stack"] as const).map((k) => Math.min(...times[k]!)) as [number, number, number];
  const beyond = guarded / pass - 1;
  rows.push(`| ${label}: bare | ${fmt(bare / STEPS)} per step | | |`);
  rows.push(`| ${label}: pass-through hooks of the same kinds | ${fmt(pass / STEPS)} per step (${(pass / bare).toFixed(3)}× bare) | | |`);
  rows.push(`| ${label}: recommended stack | ${fmt(guarded / STEPS)} per step (${(guarded / bare).toFixed(3)}× bare) | | |`);
  rows.push(`| ${label}: stack beyond pass-through | ${(beyond * 100).toFixed(1)}% (${fmt((guarded - pass) / STEPS)} per step) | ≤ ${target * 100}% | ${verdict(beyond <= target)} |`);
}

export default async function stackBench(): Promise<string> {
  const rows = ["| measurement | result | target | |", "|---|---|---|---|"];
  // By design the runaway guard stops a run past 40× its input, which a 200-step loop on a
  // one-line question is: here it only observes, doing all its work, so every step runs.
  const guards = () => recommendedGuards({ runaway: { observeOnly: true } });
  await compare("200-step createAgent", timeAgent, () => guards().agent, 0.1, rows);
  await compare("200-step createDeepAgent", timeDeepAgent, () => guards().deepAgent, 0.05, rows);
  return `## The recommended stack\n\n${rows.join("\n")}`;
}
