import { deflateSync } from "node:zlib";
import { createAgent, type AgentMiddleware } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { BinaryReadGuardMiddleware, MemoryOffloadStore, ToolResultBudgetMiddleware } from "harness-kit";
import { ScriptedChatModel, type ScriptedTurn } from "harness-kit/testing";
import { textOf } from "./text.js";

/** About 2 MB of service log with one line that matters. */
const LOG = Array.from({ length: 40_000 }, (_, i) =>
  i === 31_337
    ? `2024-05-01T12:00:${String(i % 60).padStart(2, "0")}Z ERROR payment-service: card processor timeout after 30s`
    : `2024-05-01T12:00:${String(i % 60).padStart(2, "0")}Z INFO request ${i} handled in ${i % 90} ms`,
).join("\n");

/** A small real PNG (a 64x64 gradient). */
function png(): Buffer {
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const b of bytes) {
      c ^= b;
      for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
    }
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(64, 0);
  header.writeUInt32BE(64, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc(64 * (1 + 64 * 3));
  for (let y = 0; y < 64; y++) for (let x = 0; x < 192; x++) rows[y * 193 + 1 + x] = (x * 3 + y * 5) % 256;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const lastToolText = (messages: BaseMessage[]) =>
  textOf(messages.filter((m) => ToolMessage.isInstance(m)).at(-1)?.content);
const charsSeen = (model: ScriptedChatModel) =>
  model.seen.reduce((sum, messages) => sum + messages.reduce((s, m) => s + textOf(m.content).length, 0), 0);

interface Scenario {
  title: string;
  tools: () => Parameters<typeof createAgent>[0]["tools"];
  /** The scripted model reacts to what it was given, as a real one would. */
  turns: ScriptedTurn[];
  middleware: () => AgentMiddleware[];
}

const scenarios: Scenario[] = [
  {
    title: "ToolResultBudgetMiddleware: a 2 MB log dump",
    tools: () => [
      tool(async () => LOG, { name: "fetch_logs", description: "Returns today's service log.", schema: z.object({}) }),
    ],
    turns: [
      { toolCalls: [{ name: "fetch_logs", args: {} }] },
      (messages) => {
        const key = /stored under the key "([^"]+)"/.exec(lastToolText(messages))?.[1];
        return key
          ? { toolCalls: [{ name: "read_stored_result", args: { key, pattern: "ERROR" } }] }
          : { text: "The log looks healthy." };
      },
      (messages) => ({ text: `Found it: ${/ERROR (.*)/.exec(lastToolText(messages))?.[1] ?? "nothing"}` }),
    ],
    middleware: () => [new ToolResultBudgetMiddleware({ store: new MemoryOffloadStore() })],
  },
  {
    title: "BinaryReadGuardMiddleware: reading a PNG as text",
    tools: () => [
      tool(async ({ path }: { path: string }) => (path.endsWith(".png") ? png().toString("utf8") : "?"), {
        name: "read_file",
        description: "Reads a file as text.",
        schema: z.object({ path: z.string() }),
      }),
      tool(async () => "Bar chart: revenue by quarter, Q1 3.1M, Q2 3.4M, Q3 4.2M.", {
        name: "ocr",
        description: "Extracts text from an image.",
        schema: z.object({ path: z.string() }),
      }),
    ],
    turns: [
      { toolCalls: [{ name: "read_file", args: { path: "/reports/q3-chart.png" } }] },
      (messages) =>
        lastToolText(messages).includes("Do not guess")
          ? { toolCalls: [{ name: "ocr", args: { path: "/reports/q3-chart.png" } }] }
          : { text: "The chart shows steady growth across all regions." }, // what a model makes of mojibake
      (messages) => ({ text: `From the chart: ${lastToolText(messages)}` }),
    ],
    middleware: () => [new BinaryReadGuardMiddleware()],
  },
];

async function runOnce(scenario: Scenario, guarded: boolean) {
  const model = new ScriptedChatModel({ turns: scenario.turns });
  const agent = createAgent({ model, tools: scenario.tools(), middleware: guarded ? scenario.middleware() : [] });
  const result = await agent.invoke({ messages: [new HumanMessage("Please look into it.")] });
  const firstResult = textOf(result.messages.find((m) => ToolMessage.isInstance(m))?.content);
  return {
    toolCalls: result.messages.filter((m) => ToolMessage.isInstance(m)).length,
    modelCalls: model.callCount,
    chars: charsSeen(model),
    firstResult:
      firstResult.length > 110 ? `${JSON.stringify(firstResult.slice(0, 110))}…` : JSON.stringify(firstResult),
    last: textOf(result.messages.at(-1)?.content),
  };
}

export async function demoBudgetAndBinary(): Promise<void> {
  for (const scenario of scenarios) {
    const without = await runOnce(scenario, false);
    const guarded = await runOnce(scenario, true);
    console.log(`\n▶ ${scenario.title}`);
    console.log(
      `  without: ${without.toolCalls} tool calls, ${without.modelCalls} model calls, ${without.chars.toLocaleString()} characters sent to the model`,
    );
    console.log(`           first result as the model read it: ${without.firstResult}`);
    console.log(`           final answer: ${without.last}`);
    console.log(
      `  with:    ${guarded.toolCalls} tool calls, ${guarded.modelCalls} model calls, ${guarded.chars.toLocaleString()} characters sent to the model`,
    );
    console.log(`           first result as the model read it: ${guarded.firstResult}`);
    console.log(`           final answer: ${guarded.last}`);
  }
}
