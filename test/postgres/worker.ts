// A worker process of the multi-process test: `node --import tsx worker.ts <postgres url>`.
// Its parent sends jobs, one at a time: "run the next graph step of thread T". The worker resumes
// T from the shared PostgresSaver, runs one step (every node is an interrupt point), and reports
// what it did. It keeps nothing between jobs that a step could depend on: new worker, same result.
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { LangGraphOffloadStore, type OffloadContext, type OffloadStore, type Signal } from "../../src/index.js";
import { scenarioAgent, startMessage, SUMMARISED } from "./scenario.js";

export interface Job {
  threadId: string;
  script: string;
  /** The thread's first step: start it with the script's message. */
  start: boolean;
  /** Hang right after this step's first offload, so that the parent kills the worker mid-step. */
  dieAfterOffload: boolean;
}

export type WorkerReport =
  | { kind: "ready" }
  | { kind: "ran"; threadId: string; tool: string; toolCallId: string }
  | { kind: "offloaded"; threadId: string; key: string; dying: boolean }
  | { kind: "step"; threadId: string; nodes: string[]; done: boolean; signals: Signal[]; answered: string[] }
  | { kind: "failed"; threadId: string; error: string };

const [url] = process.argv.slice(2) as [string];
const send = (report: WorkerReport) => void (process.connected && process.send?.(report));
const checkpointer = PostgresSaver.fromConnString(url);
const store = new LangGraphOffloadStore({ store: PostgresStore.fromConnString(url, { ensureTables: false }) });

let job: Job | undefined;
let signals: Signal[] = [];

/** The shared store, reporting each offload to the parent (and stopping there in a job that must die). */
const reportingStore: OffloadStore = {
  async put(key: string, content: string, context: OffloadContext) {
    await store.put(key, content, context);
    const dying = job?.dieAfterOffload === true;
    // Time for the step's other calls to finish and LangGraph to save their writes: they must survive the crash.
    if (dying) await new Promise((resolve) => setTimeout(resolve, 300));
    send({ kind: "offloaded", threadId: context.threadId ?? "", key, dying });
    if (dying) await new Promise(() => {}); // the parent kills this process now
  },
  get: (key, context) => store.get(key, context),
};

const hooks = {
  checkpointer,
  offloadStore: reportingStore,
  onSignal: (signal: Signal) => void signals.push(signal),
  onToolRun: (tool: string, toolCallId: string) =>
    send({ kind: "ran", threadId: job?.threadId ?? "", tool, toolCallId }),
};
const agents = {
  plain: scenarioAgent({ ...hooks, summarised: false }),
  summarised: scenarioAgent({ ...hooks, summarised: true }),
};

async function runStep(next: Job): Promise<void> {
  job = next;
  signals = [];
  const agent = SUMMARISED.has(next.script) ? agents.summarised : agents.plain;
  const config = { configurable: { thread_id: next.threadId }, recursionLimit: 500, interruptAfter: "*" as const };
  try {
    const nodes = next.start ? [] : [...(await agent.graph.getState(config)).next];
    const result = await agent.invoke(next.start ? { messages: [startMessage(next.script)] } : null, config);
    const done = (await agent.graph.getState(config)).next.length === 0;
    send({ kind: "step", threadId: next.threadId, nodes, done, signals, answered: answeredNow(result.messages) });
  } catch (error) {
    send({
      kind: "failed",
      threadId: next.threadId,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
}

/** The call ids a tool step answered: the tool messages after the last AI message. */
function answeredNow(messages: readonly BaseMessage[]): string[] {
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0 && ToolMessage.isInstance(messages[i]); i--)
    out.unshift((messages[i] as ToolMessage).tool_call_id);
  return out;
}

process.on("message", (message: Job) => void runStep(message));
process.on("disconnect", () => process.exit(0));
send({ kind: "ready" });
