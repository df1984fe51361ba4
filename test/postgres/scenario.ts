// The agents and scripts that the Postgres tests run, in worker processes and in one process
// alike. Everything a step does is a function of the thread's checkpointed history (the model's
// turn, the tools' answers, the call ids), never of the process that runs it, so a thread run
// step by step on many workers must end exactly as the same thread run in one process.
import { createAgent, summarizationMiddleware, type AgentMiddleware } from "langchain";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool, type ToolRuntime } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { z } from "zod";
import { recommendedGuards, type OffloadStore, type Signal } from "../../src/index.js";
import { ScriptedChatModel, type ScriptedTurn, type ScriptedTurnSpec } from "../../src/testing/index.js";

/** A script's turn: data, or a function of the messages the model sees (to read a preview's key). */
type Turn = ScriptedTurnSpec | ((messages: readonly BaseMessage[]) => ScriptedTurnSpec);

const call = (name: string, args: Record<string, unknown>, id: string) => ({ name, args, id });
const KEY_IN_PREVIEW = /stored under the key "([A-Za-z0-9_-]+)"/;

/** The key named by the latest preview the model sees. */
export function latestKey(messages: readonly BaseMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const found = KEY_IN_PREVIEW.exec(String(messages[i]!.content));
    if (found) return found[1]!;
  }
  throw new Error("no preview with an offload key in the messages");
}

/** Scripts by name. Call ids are fixed, so offload keys and signals are the same in every run. */
export const SCRIPTS: Record<string, Turn[]> = {
  // A report too large for the context is offloaded, then read back by key.
  offload: [
    { toolCalls: [call("fetch_report", { id: 1 }, "off-1")] },
    (messages) => ({
      toolCalls: [call("read_stored_result", { key: latestKey(messages), offset: 20_000, length: 300 }, "off-2")],
    }),
    { text: "report read" },
  ],
  // The same status call with the same answer: the progress guard refuses, then stops the run.
  loop: Array.from({ length: 8 }, (_, i) => ({ toolCalls: [call("job_status", { id: 7 }, `loop-${i}`)] })),
  // Parallel calls, a duplicate inside one batch, a large result and a write.
  batch: [
    { toolCalls: [call("fetch_report", { id: 2 }, "batch-1"), call("job_status", { id: 3 }, "batch-2")] },
    { toolCalls: [call("job_status", { id: 3 }, "batch-3"), call("job_status", { id: 3 }, "batch-4")] },
    { toolCalls: [call("send_email", { to: "ops@example.com" }, "batch-5")] },
    { text: "batch done" },
  ],
  // The tests kill the worker running this thread's first tool step right after its offload.
  kill: [
    { toolCalls: [call("fetch_report", { id: 3 }, "kill-1"), call("job_status", { id: 9 }, "kill-2")] },
    (messages) => ({
      toolCalls: [call("read_stored_result", { key: latestKey(messages), pattern: "line 599" }, "kill-3")],
    }),
    { text: "killed and resumed" },
  ],
  // The same poll, the same answer, under a summary every few messages: the loop guards must
  // count polls the summaries removed (the carried history), whichever worker runs the step.
  carry: Array.from({ length: 12 }, (_, i) => ({ toolCalls: [call("poll_job", { job: "j1" }, `carry-${i}`)] })),
};

/** Scripts that run under LangChain's summarization middleware. */
export const SUMMARISED = new Set(["carry"]);

export const startMessage = (script: string) => new HumanMessage(`run ${script}`);

const TURN_TEXT = /^(\w+):(\d+)$/;

/**
 * The model's next turn for the thread it is called on: each AI turn says which script and step
 * it played, and a summary keeps the latest AI turn, so the position survives any worker.
 */
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
  const spec = typeof turn === "function" ? turn(messages) : turn;
  return spec.toolCalls ? { ...spec, text: `${script}:${step}` } : spec;
}

/** 36,000 characters: above the budget's default 20,000, so the budget offloads it. */
export function reportText(id: number): string {
  return Array.from({ length: 600 }, (_, i) => `report ${id} line ${i}: ${"abcdefghij".repeat(5)}`).join("\n");
}

export interface ScenarioHooks {
  onSignal?: (signal: Signal) => void;
  /** Each tool run, as it starts (a killed step's runs included). */
  onToolRun?: (tool: string, toolCallId: string) => void;
}

function tools(hooks: ScenarioHooks) {
  const ran = (name: string, runtime: ToolRuntime | undefined) => hooks.onToolRun?.(name, runtime?.toolCallId ?? "");
  return [
    tool(async ({ id }: { id: number }, runtime: ToolRuntime) => (ran("fetch_report", runtime), reportText(id)), {
      name: "fetch_report",
      description: "Fetches a report.",
      schema: z.object({ id: z.number() }),
    }),
    tool(
      async ({ id }: { id: number }, runtime: ToolRuntime) => (
        ran("job_status", runtime),
        JSON.stringify({ id, state: "running" })
      ),
      {
        name: "job_status",
        description: "Status of a job.",
        schema: z.object({ id: z.number() }),
      },
    ),
    tool(
      async ({ job }: { job: string }, runtime: ToolRuntime) => (ran("poll_job", runtime), `job ${job}: still running`),
      {
        name: "poll_job",
        description: "Polls a job.",
        schema: z.object({ job: z.string() }),
      },
    ),
    tool(async ({ to }: { to: string }, runtime: ToolRuntime) => (ran("send_email", runtime), `sent to ${to}`), {
      name: "send_email",
      description: "Sends an email.",
      schema: z.object({ to: z.string() }),
    }),
  ];
}

function summaries(): AgentMiddleware {
  const summariser = new ScriptedChatModel({
    turns: Array.from({ length: 100 }, () => ({ text: "Earlier: the agent polled job j1." })),
  });
  return summarizationMiddleware({ model: summariser, trigger: { messages: 4 }, keep: { messages: 2 } });
}

/** The agent every worker builds: the recommended stack, offloads to `offloadStore`. */
export function scenarioAgent(
  options: { checkpointer: BaseCheckpointSaver; offloadStore: OffloadStore; summarised: boolean } & ScenarioHooks,
) {
  const guards = recommendedGuards({
    writeTools: ["send_email"],
    offloadStore: options.offloadStore,
    onSignal: options.onSignal,
  }).agent;
  const dispatch: ScriptedTurn = (messages) => nextTurn(messages);
  return createAgent({
    model: new ScriptedChatModel({ turns: Array.from({ length: 500 }, () => dispatch) }),
    tools: tools(options),
    middleware: options.summarised ? [...guards, summaries()] : guards,
    checkpointer: options.checkpointer,
  });
}

/** What a thread's messages decide, without the parts that differ between runs (AI message ids). */
export function decisionsOf(messages: readonly BaseMessage[]): unknown[] {
  return messages.map((m) => ({
    type: m.getType(),
    content: m.content,
    toolCalls: AIMessage.isInstance(m) ? m.tool_calls?.map(({ name, args, id }) => ({ name, args, id })) : undefined,
    toolCallId: (m as { tool_call_id?: string }).tool_call_id,
    status: (m as { status?: string }).status,
    mark: (m.response_metadata as Record<string, unknown> | undefined)?.harness_kit,
  }));
}
