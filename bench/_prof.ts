import { createAgent } from "langchain";
import { HumanMessage } from "@langchain/core/messages";
import { lookupScript } from "./agentOverhead.js";
import { recommendedGuards } from "../src/index.js";
const which = process.argv[2];
const steps = 300;
async function once() {
  const { model, tools } = lookupScript(steps, async () => {});
  const agent = createAgent({ model, tools, middleware: which === "stack" ? recommendedGuards().agent : [] });
  const t = performance.now();
  await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 10_000 });
  return (performance.now() - t) / steps;
}
const times = [];
for (let i = 0; i < 6; i++) times.push(await once());
console.log(which, times.map((t) => t.toFixed(2)).join(" "));
