// A custom novelty function: a ticket tool whose answers differ in a "views" counter on every
// call. Counting only the fields that matter makes a repeated lookup read as "nothing new".
// Run: npx tsx examples/custom-novelty.ts
import { createAgent } from "langchain";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ProgressAwareLoopGuardMiddleware } from "harness-kit";
import type { DeltaFunction } from "harness-kit/observe";
import { ScriptedChatModel } from "harness-kit/testing";

let views = 0;
const getTicket = tool(async ({ id }) => JSON.stringify({ id, state: "open", assignee: null, views: ++views }), {
  name: "get_ticket",
  description: "Look up a support ticket",
  schema: z.object({ id: z.string() }),
});

/** New information = a change of state or assignee since any earlier answer. */
const ticketProgress: DeltaFunction = (current, earlier) => {
  const essence = (text: string) => {
    const { state, assignee } = JSON.parse(text) as { state: string; assignee: string | null };
    return `${state}|${assignee}`;
  };
  return earlier.some((view) => essence(view.text) === essence(current.text)) ? 0 : 1;
};

const agent = createAgent({
  model: new ScriptedChatModel({
    turns: Array.from({ length: 8 }, () => ({ toolCalls: [{ name: "get_ticket", args: { id: "T-1" } }] })),
  }),
  tools: [getTicket],
  middleware: [new ProgressAwareLoopGuardMiddleware({ deltaOverrides: { get_ticket: ticketProgress } })],
});
const result = await agent.invoke({ messages: [new HumanMessage("Wait until T-1 is assigned.")] });
console.log(`get_ticket ran ${views} times; last message: ${String(result.messages.at(-1)?.content)}`);
