// Child process of memory.bench.ts: runs a 10,000-tool-call thread (1,000 turns of 10 parallel
// calls) bare or with the recommended stack, and prints as JSON the heap the finished thread holds
// (after a full GC, the result still referenced) and the process's peak resident memory.
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
const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 100_000 });
global.gc?.();
const retained = process.memoryUsage().heapUsed - before;
const toolMessages = result.messages.filter((m) => m.type === "tool").length;
console.log(JSON.stringify({ retained, maxRss: process.resourceUsage().maxRSS * 1024, toolMessages }));
