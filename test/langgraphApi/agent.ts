// The agent the LangGraph server test runs, on the server (graph.ts exports it) and in the test's
// own process alike: the recommended stack around a scripted model. Each model turn is a function
// of the thread's history only, so a thread run on the server ends as the same thread run here.
import { createAgent, summarizationMiddleware, type AgentMiddleware } from "langchain";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool, type ToolRuntime } from "@langchain/core/tools";
import { InMemoryStore, type BaseCheckpointSaver } from "@langchain/langgraph";
import { z } from "zod";
import { LangGraphOffloadStore, recommendedGuards, type Signal } from "../../src/index.js";
import { ScriptedChatModel, type ScriptedTurn, type ScriptedTurnSpec } from "../../src/testing/index.js";

const call = (name: string, args: Record<string, unknown>, id: string) => ({ name, args, id });

/** Scripts by name; call ids are fixed so that every run of a script signals on the same calls. */
export const SCRIPTS: Record<string, ScriptedTurnSpec[]> = {
  // The same status call with the same answer: the progress guard refuses it, then stops the run.
  loop: Array.from({ length: 8 }, (_, i) => ({ toolCalls: [call("job_status", { id: 7 }, `loop-${i}`)] })),
  // The same deploy, failing the same way every time.
  failing: Array.from({ length: 8 }, (_, i) => ({ toolCalls: [call("deploy", { service: "api" }, `fail-${i}`)] })),
  // Different calls that all bring something new, then an answer: nothing to act on.
  calm: [
    { toolCalls: [call("job_status", { id: 1 }, "calm-1"), call("job_status", { id: 2 }, "calm-2")] },
    { toolCalls: [call("job_status", { id: 3 }, "calm-3")] },
    { text: "all jobs checked" },
  ],
  // The same poll under a summary every few messages: replay must count the polls it removed.
  carry: Array.from({ length: 12 }, (_, i) => ({ toolCalls: [call("poll_job", { job: "j1" }, `carry-${i}`)] })),
  // Polls that each bring news, then an answer right after a summary: no tool call has carried
  // what that summary removed, so replay finds it in the thread's earlier checkpoints.
  brief: [
    { toolCalls: [call("poll_job", { job: "b0" }, "brief-0")] },
    { toolCalls: [call("poll_job", { job: "b1" }, "brief-1")] },
    { text: "all polled" },
  ],
};

/** Scripts run by the graph with LangChain's summarization middleware. */
export const SUMMARISED = new Set(["carry", "brief"]);

export const startMessage = (script: string) => new HumanMessage(`run ${script}`);

const TURN_TEXT = /^(\w+):(\d+)$/;

/** The next turn of the script the thread runs: each AI turn names its script and step, and a summary keeps the latest. */
function nextTurn(messages: BaseMessage[]): ScriptedTurnSpec {
  let script: string | undefined;
  let step = 0;
  for (let i = messages.length - 1; i >= 0 && script === undefined; i--) {
    const found = AIMessage.isInstance(messages[i]) ? TURN_TEXT.exec(String(messages[i]!.content)) : null;
    if (found) [script, step] = [found[1]!, Number(found[2]) + 1];
  }
  script ??= /^run (\w+)$/.exec(String(messages.find(HumanMessage.isInstance)?.content))?.[1];
  const turn = script === undefined ? undefined : SCRIPTS[script]?.[step];
  if (turn === undefined) return { text: "(script finished)" };
  return turn.toolCalls ? { ...turn, text: `${script}:${step}` } : turn;
}

const tools = [
  tool(async ({ id }: { id: number }) => JSON.stringify({ id, state: id === 7 ? "running" : "done" }), {
    name: "job_status",
    description: "Status of a job.",
    schema: z.object({ id: z.number() }),
  }),
  tool(async ({ job }: { job: string }) => `job ${job}: still running`, {
    name: "poll_job",
    description: "Polls a job.",
    schema: z.object({ job: z.string() }),
  }),
  tool(
    async ({ service }: { service: string }, runtime: ToolRuntime) =>
      new ToolMessage({
        content: `Error: deploy of ${service} failed: registry unreachable`,
        tool_call_id: runtime.toolCallId,
        name: "deploy",
        status: "error",
      }),
    { name: "deploy", description: "Deploys a service.", schema: z.object({ service: z.string() }) },
  ),
];

function summaries(): AgentMiddleware {
  const summariser = new ScriptedChatModel({
    turns: Array.from({ length: 100 }, () => ({ text: "Earlier: the agent polled job j1." })),
  });
  return summarizationMiddleware({ model: summariser, trigger: { messages: 4 }, keep: { messages: 2 } });
}

/** The agent, with the recommended stack; the server sets its own checkpointer in place of `checkpointer`. */
export function serverTestAgent(options: {
  summarised: boolean;
  checkpointer?: BaseCheckpointSaver;
  onSignal?: (signal: Signal) => void;
}) {
  const offloadStore = new LangGraphOffloadStore({ store: new InMemoryStore() });
  const guards = recommendedGuards({ offloadStore, onSignal: options.onSignal }).agent;
  const dispatch: ScriptedTurn = (messages) => nextTurn(messages);
  return createAgent({
    model: new ScriptedChatModel({ turns: Array.from({ length: 500 }, () => dispatch) }),
    tools,
    middleware: options.summarised ? [...guards, summaries()] : guards,
    ...(options.checkpointer ? { checkpointer: options.checkpointer } : {}),
  });
}
