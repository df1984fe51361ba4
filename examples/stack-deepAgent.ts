// The recommended stack in createDeepAgent, passed to its task subagent too: large results go
// into the agent's own files, and a subagent stuck polling is stopped while the parent goes on.
// Run: npx tsx examples/stack-deepAgent.ts
import { createDeepAgent, createSummarizationMiddleware, StateBackend } from "deepagents";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { recommendedGuards } from "harness-kit";
import { ScriptedChatModel, type ScriptedTurn } from "harness-kit/testing";

const exportLogs = tool(async () => `${"request ok\n".repeat(40_000)}FATAL disk full`, {
  name: "export_logs",
  description: "Export the service logs",
  schema: z.object({}),
});
const jobStatus = tool(async () => JSON.stringify({ job: 7, state: "running", checked_at: new Date().toISOString() }), {
  name: "job_status",
  description: "Status of a background job",
  schema: z.object({ id: z.number() }),
});

const guards = recommendedGuards();
const poll: ScriptedTurn = { toolCalls: [{ name: "job_status", args: { id: 7 } }] };
// One scripted model serves the agent and its subagent, turn after turn.
const model = new ScriptedChatModel({
  turns: [
    { toolCalls: [{ name: "export_logs", args: {} }] },
    (messages) => {
      const path = String(messages.at(-1)?.content).match(/\/large_tool_results\/[^\s"'`)]+/)?.[0] ?? "";
      return { toolCalls: [{ name: "grep", args: { pattern: "FATAL", path } }] };
    },
    {
      toolCalls: [
        { name: "task", args: { description: "Wait until job 7 finishes", subagent_type: "general-purpose" } },
      ],
    },
    poll,
    poll,
    poll,
    poll,
    poll, // the subagent polls; the guards stop it
    { text: "The disk is full. Job 7 is still running; I stopped waiting for it." },
  ],
});

// deepagents' summary call goes to the model outside every middleware: bound it to a sixth of the
// window (README, "First five minutes"). A middleware with the same name replaces deepagents' own.
const maxInputTokens = model.profile.maxInputTokens ?? 128_000;
const summarization = () =>
  createSummarizationMiddleware({ backend: new StateBackend(), trimTokensToSummarize: Math.floor(maxInputTokens / 6) });
const agent = createDeepAgent({
  model,
  tools: [exportLogs, jobStatus],
  middleware: [summarization(), ...guards.deepAgent],
  subagents: [
    {
      name: "general-purpose",
      description: "General helper",
      systemPrompt: "You help.",
      middleware: [summarization(), ...guards.subagent],
    },
  ],
});
const { messages } = await agent.invoke({ messages: [new HumanMessage("Why is the service down?")] });
for (const message of messages.filter(ToolMessage.isInstance)) {
  console.log(`${message.name}: ${String(message.content).slice(0, 150).replaceAll("\n", " ")}`);
}
console.log(`final: ${String(messages.at(-1)?.content)}`);
