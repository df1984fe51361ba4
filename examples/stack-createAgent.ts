// The recommended stack in createAgent: a support agent whose tools flood, fail and loop.
// Run: npx tsx examples/stack-createAgent.ts
import { createAgent } from "langchain";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { recommendedGuards, type Signal } from "harness-kit";
import { ScriptedChatModel } from "harness-kit/testing";

const exportLogs = tool(async () => `${"12:00:01 request ok\n".repeat(30_000)}12:00:02 FATAL disk full`, {
  name: "export_logs",
  description: "Export the service logs",
  schema: z.object({}),
});
const getAccount = tool(async () => "<html><body><h1>Down for maintenance</h1></body></html>", {
  name: "get_account",
  description: "Fetch an account",
  schema: z.object({ id: z.string() }),
});
const updateAccount = tool(async () => "updated", {
  name: "update_account",
  description: "Change an account",
  schema: z.object({ id: z.string(), plan: z.string() }),
});

const signals: Signal[] = [];
const guards = recommendedGuards({
  writeTools: ["update_account"],
  outputSpecs: {
    get_account: { schema: z.object({ id: z.string(), plan: z.enum(["free", "pro"]) }), onInvalid: "degrade" },
  },
  onSignal: (signal) => signals.push(signal),
});

// A scripted model stands in for an LLM, so this runs without an API key.
const model = new ScriptedChatModel({
  turns: [
    { toolCalls: [{ name: "export_logs", args: {} }] },
    { toolCalls: [{ name: "get_account", args: { id: "A1" } }] },
    { toolCalls: [{ name: "update_account", args: { id: "A1", plan: "pro" } }] },
    { invalidToolCalls: [{ name: "update_account", args: '{"id": "A1", "plan": "pr', error: "truncated" }] },
    { toolCalls: [{ name: "restart_everything", args: {} }] },
    { text: "The disk is full; the account service is down for maintenance, so I changed nothing." },
  ],
});

const agent = createAgent({ model, tools: [exportLogs, getAccount, updateAccount], middleware: guards.agent });
// The guards add no graph step: LangGraph's default limit of 25 steps per run is enough here.
const { messages } = await agent.invoke({
  messages: [new HumanMessage("Why is the service down? Upgrade A1 to pro.")],
});

for (const message of messages.filter(ToolMessage.isInstance)) {
  console.log(`${message.name}: ${String(message.content).slice(0, 160).replaceAll("\n", " ")}`);
}
console.log(`\nsignals: ${signals.map((s) => `${s.guard}/${s.action}`).join(", ")}`);
console.log(`final: ${String(messages.at(-1)?.content)}`);
