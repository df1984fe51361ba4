// A thread saved in SQLite and resumed by a new agent with new guard instances (as another
// process or a restarted worker would): the guards judge from the saved history, so the loop that
// started before the restart is still caught at the right call.
// Run: npx tsx examples/resume-sqlite.ts
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent } from "langchain";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { z } from "zod";
import { recommendedGuards } from "harness-kit";
import { ScriptedChatModel, type ScriptedTurn } from "harness-kit/testing";

let polls = 0;
const jobStatus = tool(
  async () => (polls++, JSON.stringify({ state: "running", checked_at: new Date().toISOString() })),
  {
    name: "job_status",
    description: "Status of a background job",
    schema: z.object({ id: z.number() }),
  },
);
const poll: ScriptedTurn = { toolCalls: [{ name: "job_status", args: { id: 7 } }] };
const db = join(mkdtempSync(join(tmpdir(), "harness-kit-")), "threads.sqlite");
const config = { configurable: { thread_id: "job-7" }, recursionLimit: 250 };

function worker(turns: ScriptedTurn[]) {
  return createAgent({
    model: new ScriptedChatModel({ turns }),
    tools: [jobStatus],
    middleware: recommendedGuards().agent,
    checkpointer: SqliteSaver.fromConnString(db),
  });
}

// Worker 1 polls twice, then dies in the middle of the run (its third model call fails).
const dies: ScriptedTurn = () => {
  throw new Error("worker killed");
};
await worker([poll, poll, dies])
  .invoke({ messages: [new HumanMessage("Wait for job 7.")] }, config)
  .catch((error: unknown) => console.log(`worker 1: ${polls} polls, then ${String(error)}`));

// Worker 2 is a new process for all it knows: new model, new guards, same SQLite file. It resumes
// the run where the checkpoint left it; the two identical polls in history make the next one useless.
const resumed = await worker([poll, poll, poll, poll]).invoke(null, config);
console.log(`worker 2: ${polls} polls in total`);
console.log(`final: ${String(resumed.messages.at(-1)?.content)}`);
