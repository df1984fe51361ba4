// Two workers, one thread, one Postgres database: worker A runs a tool whose result is too large
// for the context (the budget offloads it to PostgresStore) and then dies; worker B, with its own
// connections and its own guard instances, resumes the thread from PostgresSaver and reads the
// stored result back. Nothing passes between the workers except the database.
// Run: POSTGRES_URL=postgresql://user:password@host:5432/db npx tsx examples/postgres-workers.ts
//      (a throwaway server: docker run -d -e POSTGRES_PASSWORD=pw -p 5432:5432 postgres, then
//      POSTGRES_URL=postgresql://postgres:pw@127.0.0.1:5432/postgres; it creates its tables there)
import { createAgent } from "langchain";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { z } from "zod";
import { LangGraphOffloadStore, recommendedGuards } from "harness-kit";
import { ScriptedChatModel, type ScriptedTurn } from "harness-kit/testing";

const url: string = process.env.POSTGRES_URL ?? "";
if (!url) throw new Error("set POSTGRES_URL to a Postgres server this example may create tables in");

// Once per deployment, not per worker: create the tables.
const [saverTables, storeTables] = [PostgresSaver.fromConnString(url), PostgresStore.fromConnString(url)];
await Promise.all([saverTables.setup(), storeTables.setup()]);
await Promise.all([saverTables.end(), storeTables.stop()]);

const fetchLogs = tool(
  async ({ service }) =>
    Array.from({ length: 2_000 }, (_, i) => `${service} ${i}: request served in ${i % 90} ms`).join("\n"),
  {
    name: "fetch_logs",
    description: "Today's logs of a service",
    schema: z.object({ service: z.string() }),
  },
);

/** A worker process, as far as the agent can tell: its own connections, model and guards. */
function worker(turns: ScriptedTurn[]) {
  const checkpointer = PostgresSaver.fromConnString(url);
  const store = PostgresStore.fromConnString(url);
  const guards = recommendedGuards({ offloadStore: new LangGraphOffloadStore({ store }) });
  const agent = createAgent({
    model: new ScriptedChatModel({ turns }),
    tools: [fetchLogs],
    middleware: guards.agent,
    checkpointer,
  });
  return { agent, close: async () => (await checkpointer.end(), await store.stop()) };
}

const keyIn = (messages: BaseMessage[]) =>
  /stored under the key "([\w-]+)"/.exec(messages.map((m) => String(m.content)).join("\n"))?.[1];
const config = { configurable: { thread_id: `logs-${Date.now()}` } };

// Worker A fetches the logs (offloaded: 60,000 characters against a budget of 20,000), then dies.
const a = worker([
  { toolCalls: [{ name: "fetch_logs", args: { service: "checkout" } }] },
  () => {
    throw new Error("worker A lost its node");
  },
]);
await a.agent
  .invoke({ messages: [new HumanMessage("How slow was checkout at request 1500?")] }, config)
  .catch((e: unknown) => console.log(`worker A: ${String(e)}`));
await a.close();

// Worker B resumes the thread where A's last checkpoint left it and reads the stored logs back.
const b = worker([
  (messages) => ({
    toolCalls: [{ name: "read_stored_result", args: { key: keyIn(messages), pattern: "checkout 1500:" } }],
  }),
  (messages) => ({ text: `From the stored logs: ${String(messages.at(-1)?.content).split("\n").at(-1)}` }),
]);
const result = await b.agent.invoke(null, config);
await b.close();
console.log(`worker B: ${String(result.messages.at(-1)?.content)}`);
