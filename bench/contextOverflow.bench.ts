import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ContextOverflowGuardMiddleware } from "../src/guards/overflow/ContextOverflowGuardMiddleware.js";
import { MemoryOffloadStore } from "../src/offload/MemoryOffloadStore.js";
import { overheadRows } from "./agentOverhead.js";
import { fmt, measure } from "./timing.js";

/** A thread of `turns` tool turns whose results are `resultChars` long. */
function thread(turns: number, resultChars: number): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage({ id: "h", content: "go" })];
  for (let i = 0; i < turns; i++) {
    messages.push(
      new AIMessage({
        id: `a${i}`,
        content: "",
        tool_calls: [{ id: `c${i}`, name: "lookup", args: { key: `k${i}` }, type: "tool_call" }],
      }),
    );
    messages.push(
      new ToolMessage({ tool_call_id: `c${i}`, name: "lookup", content: `${i}:`.padEnd(resultChars, "x") }),
    );
  }
  return messages;
}

const SYSTEM = new SystemMessage("You look things up.");
const answer = async () => new AIMessage({ content: "ok" });

/** The guard's own work for one model call, on a history that is reused step after step (as in a run). */
async function perCall(guard: ContextOverflowGuardMiddleware, messages: BaseMessage[]) {
  const request = { messages, systemMessage: SYSTEM, tools: [], runtime: { configurable: { thread_id: "bench" } } };
  return measure(() => guard.wrapModelCall(request, answer), 400, 40);
}

async function callNumbers(rows: string[]): Promise<void> {
  const roomy = new ContextOverflowGuardMiddleware({ maxInputTokens: 1_000_000 });
  const fits100 = await perCall(roomy, thread(50, 200));
  const fits1000 = await perCall(roomy, thread(500, 200));
  rows.push(
    `| a request that fits, 100 / 1,000 messages of history (a running total: only new messages are measured) | p50 ${fmt(fits100.p50)} / ${fmt(fits1000.p50)} (p95 ${fmt(fits100.p95)} / ${fmt(fits1000.p95)}) | | |`,
  );

  const tight = new ContextOverflowGuardMiddleware({ maxInputTokens: 16_000, store: new MemoryOffloadStore() });
  const shrink = await perCall(tight, thread(100, 4000));
  rows.push(
    `| a request that must shrink: 200 messages, 100 results of 4,000 characters into a 16,000-token window (stores already written) | p50 ${fmt(shrink.p50)} (p95 ${fmt(shrink.p95)}) | | |`,
  );
}

export default async function contextOverflowBench(): Promise<string> {
  const rows = ["| measurement | result | target | |", "|---|---|---|---|"];
  await callNumbers(rows);
  // A window far above what the run uses: the guard measures every request and changes none.
  await overheadRows(
    "ContextOverflowGuardMiddleware (nothing to shrink)",
    "createAgent",
    () => [new ContextOverflowGuardMiddleware({ maxInputTokens: 1_000_000 })],
    0.05,
    rows,
  );
  return `## ContextOverflowGuard\n\n${rows.join("\n")}`;
}
