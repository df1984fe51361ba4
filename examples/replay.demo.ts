import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
  return [
    ...[1, 2, 3, 4, 5].flatMap((i) => [attempt, { toolCalls: [{ name: "think", args: { thought: `retry ${i}` } }] }]),
    { text: "I could not book it." },
  ];
}

function bookingTools() {
  const counter = { bookings: 0 };
  const book = tool(async () => (counter.bookings++, "Error: payment amount does not add up, total price is 375"), {
    name: "book_reservation",
    description: "book a flight",
    schema: z.object({ flight: z.string(), amount: z.number() }),
  });
  const think = tool(async () => "", {
    name: "think",
    description: "think",
    schema: z.object({ thought: z.string() }),
  });
  return { tools: [book, think], counter };
}

// The `harness-kit` command, as `npx harness-kit ...` runs it once the package is installed. In this
// repository there is no build to run, so the command runs from its source through tsx.
const CLI_SOURCE = new URL("../src/cli/main.ts", import.meta.url).pathname;

function harnessKit(args: string[]): { stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ["--import", "tsx", CLI_SOURCE, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { stdout: run.stdout, stderr: run.stderr };
}

interface Decision {
  toolCallId?: string;
  guard: string;
  action: string;
}

/** The decisions `eval --jsonl` prints, one JSON line each. */
function decisionsIn(stdout: string): Decision[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Decision);
}

const sameDecision = (a: Decision | undefined, b: Decision | undefined) =>
  a?.toolCallId === b?.toolCallId && a?.guard === b?.guard && a?.action === b?.action;

/**
 * The live signals next to the replayed decisions, row by row; throws unless they are equal in
 * guard, action, call and order, so `npm run demo` fails when replay drifts from the live stack.
 */
function showSideBySide(live: Decision[], replayed: Decision[]): void {
  const rows = Array.from(
    { length: Math.max(live.length, replayed.length) },
    (_, i) => [live[i], replayed[i]] as const,
  );
  const cell = (d: Decision | undefined, call: string) =>
    !d ? "(none)" : `${d.action} ${d.guard}${d.toolCallId === call ? "" : ` on ${d.toolCallId}`}`;
  const lines = rows.map(([l, r]) => {
    const call = l?.toolCallId ?? r?.toolCallId ?? "";
    return [call, cell(l, call), cell(r, call)];
  });
  const widths = [0, 1].map((c) => Math.max(...[["call", "live signal"], ...lines].map((line) => line[c]!.length)));
  for (const line of [["call", "live signal", "replayed decision"], ...lines])
    console.log(`  ${line[0]!.padEnd(widths[0]!)}  ${line[1]!.padEnd(widths[1]!)}  ${line[2]}`);
  if (!rows.every(([l, r]) => sameDecision(l, r))) {
    throw new Error(
      `harness-kit eval on the guarded thread differs from the live run: ${replayed.length} decisions replayed, ${live.length} signalled live`,
    );
  }
  console.log(
    `  equal: the ${live.length} replayed decisions are the live signals, with the same guard, action, call and order`,
  );
}

/**
 * `harness-kit eval` and `inspect` on a thread saved by a SQLite checkpointer: a run without the
 * loop guards, what replay says they would have done, and the same run with them live, replayed
 * with the live stack's order.
 */
export async function demoReplay(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "harness-kit-replay-demo-"));
  const db = join(dir, "threads.sqlite");
  try {
    console.log("\n== harness-kit eval / inspect: replaying a saved thread");

    const unguarded = bookingTools();
    const plain = createAgent({
      model: new ScriptedChatModel({ turns: bookingTurns() }),
      tools: unguarded.tools,
      checkpointer: SqliteSaver.fromConnString(db),
    });
    await plain.invoke(
      { messages: [new HumanMessage("Book HAT001 for me.")] },
      { configurable: { thread_id: "no-guards" } },
    );
    console.log(
      `without guards: the failing booking ran ${unguarded.counter.bookings} times; the thread is saved as "no-guards"`,
    );

    const wouldHave = decisionsIn(harnessKit(["eval", "--sqlite", db, "--thread", "no-guards", "--jsonl"]).stdout);
    console.log(`harness-kit eval --sqlite threads.sqlite --thread no-guards --jsonl: ${wouldHave.length} decisions`);
    for (const d of wouldHave) console.log(`  ${d.action.padEnd(9)} ${d.guard} on ${d.toolCallId}`);

    const inspected = harnessKit(["inspect", "--sqlite", db, "--thread", "no-guards"]).stdout;
    console.log(
      inspected
        .split("\n")
        .slice(3, 9)
        .map((line) => `  ${line.slice(0, 110)}`)
        .join("\n"),
    );

    const guarded = bookingTools();
    const signals: Signal[] = [];
    const onSignal = (signal: Signal) => signals.push(signal);
    const live = createAgent({
      model: new ScriptedChatModel({ turns: bookingTurns() }),
      tools: guarded.tools,
      middleware: [new LoopGuardMiddleware({ onSignal }), new ProgressAwareLoopGuardMiddleware({ onSignal })],
      checkpointer: SqliteSaver.fromConnString(db),
    });
    await live.invoke(
      { messages: [new HumanMessage("Book HAT001 for me.")] },
      { configurable: { thread_id: "guarded" } },
    );
    console.log(
      `with both guards live, LoopGuardMiddleware outermost: the booking ran ${guarded.counter.bookings} times`,
    );

    // The identical-call guard only warned here, which leaves no trace in the thread: its place
    // in the stack comes from the config, in the live middleware order.
    const stack = join(dir, "stack.json");
    writeFileSync(stack, JSON.stringify({ guards: { LoopGuardMiddleware: {}, ProgressAwareLoopGuardMiddleware: {} } }));
    const replay = harnessKit(["eval", "--sqlite", db, "--thread", "guarded", "--config", stack, "--jsonl"]);
    const order = replay.stderr
      .split("\n")
      .find((line) => line.startsWith("order"))
      ?.replace(/^order\s+/, "")
      .replace(stack, "stack.json");
    console.log(
      `harness-kit eval --sqlite threads.sqlite --thread guarded --config stack.json --jsonl replays ${order}`,
    );
    showSideBySide(signals, decisionsIn(replay.stdout));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
