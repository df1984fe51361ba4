import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import {
  GuardStopError,
  LoopGuardMiddleware,
  ProgressAwareLoopGuardMiddleware,
  SIGNAL_EVENT,
  type Signal,
} from "../../../src/index.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { call, countingTool, guardAnswers, lastText, repeat, run } from "../../helpers/loopAgent.js";

describe("LoopGuardMiddleware in createAgent", () => {
  // The same answer every time: LoopGuard counts only repeats that bring nothing new.
  const search = () => countingTool("search", () => "3 results for x");

  it("never warns or stops a poll whose progress moves, nor tailing a log that grows", async () => {
    const job = countingTool("job_status", (_input, n) =>
      JSON.stringify({ id: 7, state: n < 9 ? "running" : "done", progress: 11 * n }),
    );
    const signals: Signal[] = [];
    const both = () => [
      new ProgressAwareLoopGuardMiddleware({ onSignal: (s) => signals.push(s) }),
      new LoopGuardMiddleware({ onSignal: (s) => signals.push(s) }),
    ];
    const polled = await run(both(), [job.tool], [...repeat(9, call("job_status", { id: 7 })), { text: "done" }]);
    expect(job.counter.runs).toBe(9);
    expect(lastText(polled.messages)).toBe("done");

    const lines: string[] = [];
    const log = countingTool("tail_log", (_input, n) => (lines.push(`step ${n} finished`), lines.slice(-5).join("\n")));
    const tailed = await run(
      both(),
      [log.tool],
      [...repeat(12, call("tail_log", { path: "build.log", lines: 5 })), { text: "built" }],
    );
    expect(log.counter.runs).toBe(12);
    expect(lastText(tailed.messages)).toBe("built");
    expect(signals).toEqual([]);
  });

  it("ends the run at stopAt with every call answered and a final message", async () => {
    const t = search();
    const signals: Signal[] = [];
    const { messages } = await run(
      [new LoopGuardMiddleware({ warnAt: 2, stopAt: 3, onSignal: (s) => signals.push(s) })],
      [t.tool],
      repeat(10, call("search", { q: "x" })),
    );
    expect(t.counter.runs).toBe(2);
    expect(signals.map((s) => s.action)).toEqual(["warn", "stop"]);
    expect(lastText(messages)).toMatch(/^Run stopped by LoopGuardMiddleware: "search" was called 3 times in a row/);
  });

  it("answers sibling calls of a stopped batch with a not-run notice", async () => {
    const t = search();
    const other = countingTool("lookup", () => "found");
    const batch: ScriptedTurn = {
      toolCalls: [
        { name: "search", args: { q: "x" } },
        { name: "lookup", args: {} },
      ],
    };
    const { messages } = await run(
      [new LoopGuardMiddleware({ warnAt: 2, stopAt: 3 })],
      [t.tool, other.tool],
      [call("search", { q: "x" }), call("search", { q: "x" }), batch],
    );
    expect(other.counter.runs).toBe(0);
    const answers = guardAnswers(messages).map((m) => String(m.content));
    expect(answers[0]).toMatch(/call 3 to "search"/);
    expect(answers[1]).toMatch(/^Not run: LoopGuardMiddleware stopped the run/);
  });

  it("exitBehavior directive refuses repeats and lets the model change course", async () => {
    const t = search();
    const turns = [...repeat(4, call("search", { q: "x" })), call("search", { q: "y" }), { text: "found it" }];
    const { messages } = await run(
      [new LoopGuardMiddleware({ warnAt: 2, stopAt: 3, exitBehavior: "directive" })],
      [t.tool],
      turns,
    );
    expect(t.counter.runs).toBe(3);
    expect(guardAnswers(messages)).toHaveLength(2);
    expect(lastText(messages)).toBe("found it");
  });

  it("exitBehavior throw rejects invoke with a typed error", async () => {
    const t = search();
    const model = new ScriptedChatModel({ turns: repeat(5, call("search", { q: "x" })) });
    const agent = createAgent({
      model,
      tools: [t.tool],
      middleware: [new LoopGuardMiddleware({ warnAt: 2, stopAt: 2, exitBehavior: "throw" })],
    });
    const error = await agent.invoke({ messages: [new HumanMessage("go")] }).catch((e: unknown) => e);
    // LangChain wraps what a wrap hook throws in its MiddlewareError; the stop is inside.
    expect(GuardStopError.in(error)).toMatchObject({ guard: "LoopGuardMiddleware", toolName: "search" });
    expect(t.counter.runs).toBe(1);
  });

  it("exitBehavior throw on a parallel batch: the stop is found in what invoke rejects with", async () => {
    const t = search();
    const model = new ScriptedChatModel({
      turns: repeat(5, {
        toolCalls: [
          { name: "search", args: { q: "x" } },
          { name: "search", args: { q: "x" } },
        ],
      }),
    });
    const agent = createAgent({
      model,
      tools: [t.tool],
      middleware: [new LoopGuardMiddleware({ warnAt: 2, stopAt: 2, exitBehavior: "throw" })],
    });
    const error = await agent.invoke({ messages: [new HumanMessage("go")] }).catch((e: unknown) => e);
    // Each call of the batch throws in its own task; LangGraph gathers those that failed by the
    // time it looks in one AggregateError, or passes the first on alone: the stop is in either.
    expect(GuardStopError.in(error)).toMatchObject({ guard: "LoopGuardMiddleware", toolName: "search" });
    expect(t.counter.runs).toBe(0);
  });

  it("emits signals as LangChain custom events", async () => {
    const t = search();
    const model = new ScriptedChatModel({ turns: repeat(5, call("search", { q: "x" })) });
    const agent = createAgent({
      model,
      tools: [t.tool],
      middleware: [new LoopGuardMiddleware({ warnAt: 2, stopAt: 3 })],
    });
    const events: unknown[] = [];
    await agent.invoke(
      { messages: [new HumanMessage("go")] },
      {
        callbacks: [
          {
            handleCustomEvent: (name: string, data: unknown) => {
              if (name === SIGNAL_EVENT) events.push(data);
            },
          },
        ],
      },
    );
    expect(events).toEqual([
      expect.objectContaining({ guard: "LoopGuardMiddleware", action: "warn" }),
      expect.objectContaining({ guard: "LoopGuardMiddleware", action: "stop" }),
    ]);
  });

  it("does not reach the custom mode of agent.stream, which carries only writes to config.writer", async () => {
    const t = search();
    const signals: unknown[] = [];
    const agent = createAgent({
      model: new ScriptedChatModel({ turns: repeat(5, call("search", { q: "x" })) }),
      tools: [t.tool],
      middleware: [new LoopGuardMiddleware({ warnAt: 2, stopAt: 3, onSignal: (s) => signals.push(s) })],
    });
    const modes: string[] = [];
    for await (const [mode] of await agent.stream(
      { messages: [new HumanMessage("go")] },
      { streamMode: ["updates", "custom"] },
    ))
      modes.push(mode);
    expect(signals).toHaveLength(2);
    expect(modes.length).toBeGreaterThan(0);
    expect(modes).not.toContain("custom");
  });

  it("keeps the count across invocations of a checkpointed thread, and resets it on a new user message", async () => {
    const t = search();
    const checkpointer = new MemorySaver();
    const model = new ScriptedChatModel({
      turns: [
        call("search", { q: "x" }),
        call("search", { q: "x" }),
        { text: "pause" },
        call("search", { q: "x" }),
        call("search", { q: "x" }),
        call("search", { q: "x" }),
        { text: "end" },
      ],
    });
    const agent = createAgent({
      model,
      tools: [t.tool],
      middleware: [new LoopGuardMiddleware({ warnAt: 2, stopAt: 3 })],
      checkpointer,
    });
    const config = { configurable: { thread_id: "t1" } };
    await agent.invoke({ messages: [new HumanMessage("go")] }, config);
    const second = await agent.invoke({ messages: [new HumanMessage("again")] }, config);
    assertToolCallPairing(second.messages);
    // the human message resets the count: 2 calls run, the 3rd is stopped
    expect(t.counter.runs).toBe(4);
    expect(lastText(second.messages)).toMatch(/Run stopped by LoopGuardMiddleware/);
  });

  it("both guards compose, with LangChain's own middleware too", async () => {
    const t = search();
    const { toolCallLimitMiddleware } = await import("langchain");
    const { messages } = await run(
      [new LoopGuardMiddleware(), new ProgressAwareLoopGuardMiddleware(), toolCallLimitMiddleware({ runLimit: 50 })],
      [t.tool],
      repeat(10, call("search", { q: "x" })),
    );
    expect(t.counter.runs).toBeLessThanOrEqual(6);
    expect(lastText(messages)).toMatch(/Run stopped by/);
  });
});
