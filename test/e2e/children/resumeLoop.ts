// Child process for the checkpoint-restore test: `tsx resumeLoop.ts <db> <thread> crash|resume`.
// "crash" polls twice then dies inside the third model call, leaving the thread mid-run in SQLite;
// "resume" continues that thread in a fresh process and prints what happened as JSON.
import { createAgent } from "langchain";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { z } from "zod";
import { LoopGuardMiddleware, ProgressAwareLoopGuardMiddleware, type Signal } from "../../../src/index.js";
import { assertToolCallPairing, ScriptedChatModel } from "../../../src/testing/index.js";

const [db, threadId, phase] = process.argv.slice(2) as [string, string, "crash" | "resume"];
let runs = 0;
const jobStatus = tool(async () => (runs++, JSON.stringify({ status: "running", at: new Date().toISOString() })), {
  name: "job_status",
  description: "status of a job",
  schema: z.object({ id: z.number() }),
});
const poll = { toolCalls: [{ name: "job_status", args: { id: 7 } }] };
const turns = phase === "crash" ? [poll, poll, () => process.exit(0) as never] : Array.from({ length: 10 }, () => poll);
const signals: Signal[] = [];
const agent = createAgent({
  model: new ScriptedChatModel({ turns }),
  tools: [jobStatus],
  middleware: [new LoopGuardMiddleware(), new ProgressAwareLoopGuardMiddleware({ onSignal: (s) => signals.push(s) })],
  checkpointer: SqliteSaver.fromConnString(db),
});
const config = { configurable: { thread_id: threadId } };
const result = await agent.invoke(
  phase === "crash" ? { messages: [new HumanMessage("wait for job 7")] } : null,
  config,
);
assertToolCallPairing(result.messages);
console.log(
  JSON.stringify({
    runs,
    signals: signals.map((s) => s.action),
    toolMessages: result.messages.filter(ToolMessage.isInstance).length,
    last: String(result.messages.at(-1)?.content),
  }),
);
