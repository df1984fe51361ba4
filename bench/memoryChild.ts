// Child process of memory.bench.ts: runs a 10,000-tool-call thread (1,000 turns of 10 parallel
// calls) bare or with the recommended stack, and prints its peak heap as JSON.
import { createAgent, type AgentMiddleware } from "langchain";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { recommendedGuards } from "../src/index.js";
import { ScriptedChatModel } from "../src/testing/index.js";

const TURNS = 1_000;
const PARALLEL = 10;
const withStack = process.argv[2] === "stack";

const model = new ScriptedChatModel({
  turns: [
    ...Array.from({ length: TURNS }, (_, t) => ({
      toolCalls: Array.from({ length: PARALLEL }, (_, i) => ({ name: "lookup", args: { key: `k${t}-${i}` } })),
    })),
    { text: "done" },
  ],
});
const lookup = tool(async ({ key }: { key: string }) => `value of ${key}: ${"detail ".repeat(20)}`, {
  name: "lookup",
  description: "look a key up",
  schema: z.object({ key: z.string() }),
});
// The runaway guard would (rightly) stop a 1,000-turn loop on a one-line question; it observes here.
const middleware: AgentMiddleware[] = withStack ? recommendedGuards({ runaway: { observeOnly: true } }).agent : [];
const agent = createAgent({ model, tools: [lookup], middleware });

global.gc?.();
const before = process.memoryUsage().heapUsed;
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 100_000 });
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().heapUsed);
const toolMessages = result.messages.filter((m) => m.type === "tool").length;
console.log(JSON.stringify({ before, peak, toolMessages }));
