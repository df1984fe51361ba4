import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { z } from "zod";
import { LoopGuardMiddleware, ProgressAwareLoopGuardMiddleware, type Signal } from "../../src/index.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { runCli } from "../../src/cli/cli.js";
import { captureIo } from "./io.js";

const dir = mkdtempSync(join(tmpdir(), "hk-live-replay-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const call = (name: string, args: Record<string, unknown> = {}): ScriptedTurn => ({ toolCalls: [{ name, args }] });

/** Tools whose results exercise both guards: a failing booking, a no-op think, a stopped clock, a search. */
function tools() {
  return [
    tool(async () => "Error: payment amount does not add up", {
      name: "book_reservation",
      description: "book",
      schema: z.object({ flight: z.string() }),
    }),
    tool(async () => "", { name: "think", description: "think", schema: z.object({ thought: z.string() }) }),
    tool(async () => "12:00", { name: "clock", description: "time", schema: z.object({}) }),
    tool(async ({ q }: { q: string }) => `results for ${q}`, {
      name: "search",
      description: "search",
      schema: z.object({ q: z.string() }),
    }),
  ];
}

describe("eval on a saved checkpoint reports what the live run signalled", () => {
  it("same decisions, same order, across two invocations of a SQLite-checkpointed thread", async () => {
    const db = join(dir, "threads.sqlite");
    const signals: Signal[] = [];
    const onSignal = (signal: Signal) => signals.push(signal);
    const book = call("book_reservation", { flight: "HAT001" });
    const think = (thought: string) => call("think", { thought });
    const model = new ScriptedChatModel({
      turns: [
        // first invocation: a failing booking retried with think calls between (refused, not stopped),
        book,
        think("retry"),
        book,
        think("again"),
        book,
        think("once more"),
        book,
        // a parallel batch with a duplicate,
        {
          toolCalls: [
            { name: "search", args: { q: "flights" } },
            { name: "search", args: { q: "hotels" } },
            { name: "search", args: { q: "flights" } },
          ],
        },
        // then a stopped clock, polled (the progress guard waits on it) until LoopGuard, outermost, stops the run
        ...Array.from({ length: 8 }, () => call("clock")),
        // second invocation, after a new user message: the counts start over
        call("search", { q: "trains" }),
        call("search", { q: "trains" }),
        call("search", { q: "trains" }),
        { text: "done" },
      ],
    });
    const agent = createAgent({
      model,
      tools: tools(),
      middleware: [
        new LoopGuardMiddleware({ onSignal }),
        new ProgressAwareLoopGuardMiddleware({ exitBehavior: "directive", pollingTools: ["clock"], onSignal }),
      ],
      checkpointer: SqliteSaver.fromConnString(db),
    });
    const config = { configurable: { thread_id: "booking-1" }, recursionLimit: 200 };
    await agent.invoke({ messages: [new HumanMessage("book HAT001 for me")] }, config);
    const second = await agent.invoke({ messages: [new HumanMessage("now find trains")] }, config);
    assertToolCallPairing(second.messages);

    // The live run must have exercised both guards and every action, or this test proves little.
    expect(new Set(signals.map((s) => `${s.guard}:${s.action}`))).toEqual(
      new Set([
        "ProgressAwareLoopGuardMiddleware:directive",
        "ProgressAwareLoopGuardMiddleware:stop",
        "LoopGuardMiddleware:warn",
        "LoopGuardMiddleware:stop",
      ]),
    );

    const configFile = join(dir, "stack.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        guards: {
          LoopGuardMiddleware: {},
          ProgressAwareLoopGuardMiddleware: { exitBehavior: "directive", pollingTools: ["clock"] },
        },
      }),
    );
    const io = captureIo();
    const code = await runCli(["eval", "--sqlite", db, "--thread", "booking-1", "--config", configFile, "--jsonl"], io);
    expect(code).toBe(0);
    const replayed = io.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>);
    const live = signals.map(({ toolCallId, tool, guard, action, reason }) => ({
      thread: "booking-1",
      toolCallId,
      tool,
      guard,
      action,
      reason,
    }));
    expect(replayed).toEqual(live);
    expect(io.stderr()).toMatch(/threads\s+1\b/);
  });

  it("replays the recorded guard answers as they are: the default stack, stopped by ProgressAwareLoopGuard", async () => {
    const db = join(dir, "default.sqlite");
    const signals: Signal[] = [];
    const onSignal = (signal: Signal) => signals.push(signal);
    const model = new ScriptedChatModel({
      turns: Array.from({ length: 8 }, () => call("book_reservation", { flight: "HAT002" })),
    });
    const agent = createAgent({
      model,
      tools: tools(),
      middleware: [new ProgressAwareLoopGuardMiddleware({ onSignal }), new LoopGuardMiddleware({ onSignal })],
      checkpointer: SqliteSaver.fromConnString(db),
    });
    await agent.invoke({ messages: [new HumanMessage("book HAT002")] }, { configurable: { thread_id: "t" } });
    expect(signals.at(-1)?.action).toBe("stop");

    const io = captureIo();
    expect(await runCli(["eval", "--sqlite", db, "--jsonl"], io)).toBe(0);
    const replayed = io.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(replayed).toEqual(
      signals.map(({ toolCallId, tool, guard, action, reason }) => ({
        thread: "t",
        toolCallId,
        tool,
        guard,
        action,
        reason,
      })),
    );
  });
});
