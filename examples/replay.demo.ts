import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent } from "langchain";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { z } from "zod";
import { LoopGuardMiddleware, ProgressAwareLoopGuardMiddleware, type Signal } from "harness-kit";
import { ScriptedChatModel, type ScriptedTurn } from "harness-kit/testing";

/** A booking that fails the same way every time, retried with a `think` call between attempts. */
function bookingTurns(): ScriptedTurn[] {
  const attempt: ScriptedTurn = { toolCalls: [{ name: "book_reservation", args: { flight: "HAT001", amount: 299 } }] };
  return [...[1, 2, 3, 4, 5].flatMap((i) => [attempt, { toolCalls: [{ name: "think", args: { thought: `retry ${i}` } }] }]), { text: "I could not book it." }];
}

function bookingTools() {
  const counter = { bookings: 0 };
  const book = tool(async () => (counter.bookings++, "Error: payment amount does not add up, total price is 375"), {
    name: "book_reservation",
    description: "book a flight",
    schema: z.object({ flight: z.string(), amount: z.number() }),
  });
  const think = tool(async () => "", { name: "think", description: "think", schema: z.object({ thought: z.string() }) });
  return { tools: [book, think], counter };
}

// The `harness-kit` command, as `npx harness-kit ...` runs it once the package is installed. In this
// repository there is no build to run, so the command runs from its source through tsx.
const CLI_SOURCE = new URL("../src/cli/main.ts", import.meta.url).pathname;

function harnessKit(args: string[]): string {
  const run = spawnSync(process.execPath, ["--import", "tsx", CLI_SOURCE, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return run.stdout + run.stderr;
}

/**
 * `harness-kit eval` and `inspect` on a thread saved by a SQLite checkpointer: a run without the
 * loop guards, what replay says they would have done, and the same run with them live.
 */
export async function demoReplay(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "harness-kit-replay-demo-"));
  const db = join(dir, "threads.sqlite");
  try {
    console.log("\n== harness-kit eval / inspect: replaying a saved thread");

    const unguarded = bookingTools();
    const plain = createAgent({ model: new ScriptedChatModel({ turns: bookingTurns() }), tools: unguarded.tools, checkpointer: SqliteSaver.fromConnString(db) });
    await plain.invoke({ messages: [new HumanMessage("Book HAT001 for me.")] }, { configurable: { thread_id: "no-guards" } });
    console.log(`without guards: the failing booking ran ${unguarded.counter.bookings} times; the thread is saved as "no-guards"`);

    const wouldHave = harnessKit(["eval", "--sqlite", db, "--thread", "no-guards", "--jsonl"])
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { toolCallId: string; guard: string; action: string });
    console.log(`harness-kit eval --sqlite threads.sqlite --thread no-guards --jsonl: ${wouldHave.length} decisions`);
    for (const d of wouldHave) console.log(`  ${d.action.padEnd(9)} ${d.guard} on ${d.toolCallId}`);

    const inspected = harnessKit(["inspect", "--sqlite", db, "--thread", "no-guards"]);
    console.log(inspected.split("\n").slice(3, 9).map((line) => `  ${line.slice(0, 110)}`).join("\n"));

    const guarded = bookingTools();
    const signals: Signal[] = [];
    const onSignal = (signal: Signal) => signals.push(signal);
    const live = createAgent({
      model: new ScriptedChatModel({ turns: bookingTurns() }),
      tools: guarded.tools,
      middleware: [new LoopGuardMiddleware({ onSignal }), new ProgressAwareLoopGuardMiddleware({ onSignal })],
      checkpointer: SqliteSaver.fromConnString(db),
    });
    await live.invoke({ messages: [new HumanMessage("Book HAT001 for me.")] }, { configurable: { thread_id: "guarded" } });
    console.log(`with both guards live: the booking ran ${guarded.counter.bookings} times; signals: ${signals.map((s) => `${s.action} (${s.guard})`).join(", ")}`);
    const replayedDecisions = harnessKit(["eval", "--sqlite", db, "--thread", "guarded", "--jsonl"])
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { toolCallId: string; action: string });
    const same = JSON.stringify(replayedDecisions.map((d) => [d.toolCallId, d.action])) === JSON.stringify(signals.map((s) => [s.toolCallId, s.action]));
    console.log(`eval on the guarded thread's checkpoint: ${replayedDecisions.length} decisions, ${same ? "the same as" : "NOT the same as"} the live run's signals`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
