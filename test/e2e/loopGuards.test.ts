import { describe, expect, it } from "vitest";
import { createAgent, type AgentMiddleware } from "langchain";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import {
  GuardStopError,
  LoopGuardMiddleware,
  ProgressAwareLoopGuardMiddleware,
  SIGNAL_EVENT,
  type Signal,
} from "../../src/index.js";
import { makeSetMembershipDelta } from "../../src/observe.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";

/** A tool that counts its real executions. */
function countingTool(
  name: string,
  run: (input: Record<string, unknown>, n: number) => string,
  schema = z.object({}).passthrough(),
) {
  const counter = { runs: 0 };
  const t = tool(async (input: Record<string, unknown>) => run(input, ++counter.runs), {
    name,
    description: name,
    schema,
  });
  return { tool: t, counter };
}

const repeat = (n: number, turn: ScriptedTurn): ScriptedTurn[] => Array.from({ length: n }, () => turn);
const call = (name: string, args: Record<string, unknown> = {}): ScriptedTurn => ({ toolCalls: [{ name, args }] });

async function run(middleware: AgentMiddleware[], tools: StructuredToolInterface[], turns: ScriptedTurn[]) {
  const signals: Signal[] = [];
  const model = new ScriptedChatModel({ turns });
  const agent = createAgent({ model, tools, middleware });
  const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 200 });
  assertToolCallPairing(result.messages);
  return { messages: result.messages as BaseMessage[], model, signals };
}

function guardAnswers(messages: BaseMessage[]) {
  return messages.filter(
    (m) => ToolMessage.isInstance(m) && (m.response_metadata as { harness_kit?: unknown })?.harness_kit,
  );
}

const lastText = (messages: BaseMessage[]) => String(messages.at(-1)?.content);

describe("ProgressAwareLoopGuardMiddleware in createAgent", () => {
  it("refuses a poll that changes only in its timestamp, then stops the run cleanly", async () => {
    const status = countingTool("job_status", () =>
      JSON.stringify({ status: "running", checked_at: new Date().toISOString(), request_id: crypto.randomUUID() }),
    );
    const signals: Signal[] = [];
    const { messages } = await run(
      [new ProgressAwareLoopGuardMiddleware({ onSignal: (s) => signals.push(s) })],
      [status.tool],
      repeat(20, call("job_status", { id: 7 })),
    );
    expect(status.counter.runs).toBe(2);
    expect(guardAnswers(messages)).toHaveLength(3);
    expect(signals.map((s) => s.action)).toEqual(["directive", "directive", "stop"]);
    expect(AIMessage.isInstance(messages.at(-1))).toBe(true);
    expect(lastText(messages)).toMatch(
      /^Run stopped by ProgressAwareLoopGuardMiddleware: "job_status" keeps returning nothing new/,
    );
    expect(signals[0]).toMatchObject({
      guard: "ProgressAwareLoopGuardMiddleware",
      tool: "job_status",
      action: "directive",
    });
  });

  it("lets pagination with a server-held cursor run to the end", async () => {
    const pages = countingTool("next_page", (_input, n) => (n <= 6 ? `row ${n}a\nrow ${n}b` : "no more rows"));
    const { messages } = await run(
      [new ProgressAwareLoopGuardMiddleware()],
      [pages.tool],
      [...repeat(7, call("next_page")), { text: "done" }],
    );
    expect(pages.counter.runs).toBe(7);
    expect(guardAnswers(messages)).toHaveLength(0);
    expect(lastText(messages)).toBe("done");
  });

  it("catches the same failing booking repeated with think calls between", async () => {
    const book = countingTool("book_reservation", () => "Error: payment method declined");
    const thinkTool = countingTool("think", () => "");
    const turns = [0, 1, 2, 3, 4].flatMap((i) => [
      call("book_reservation", { flight: "HAT001" }),
      call("think", { thought: `try ${i}` }),
    ]);
    const signals: Signal[] = [];
    const { messages } = await run(
      [new ProgressAwareLoopGuardMiddleware({ onSignal: (s) => signals.push(s) })],
      [book.tool, thinkTool.tool],
      turns,
    );
    expect(book.counter.runs).toBe(2);
    expect(signals[0]!.reason).toMatch(/keeps failing/);
    // errors weigh double: the run stops at the 4th booking attempt
    expect(signals.map((s) => s.action)).toEqual(["directive", "stop"]);
    expect(lastText(messages)).toMatch(/Run stopped/);
  });

  it("catches a failing call interleaved with reads that return nothing new", async () => {
    const book = countingTool("book_reservation", () => "Error: seat 12A is not available");
    const details = countingTool("get_reservation_details", () => '{"id":"R1","seat":"12A"}');
    const turns = Array.from({ length: 6 }, () => [
      call("book_reservation", { seat: "12A" }),
      call("get_reservation_details", { id: "R1" }),
    ]).flat();
    const { messages } = await run([new ProgressAwareLoopGuardMiddleware()], [book.tool, details.tool], turns);
    expect(book.counter.runs).toBe(2);
    expect(lastText(messages)).toMatch(/"book_reservation" keeps failing/);
  });

  it("stops a loop of identical errors sooner than a loop of identical successes", async () => {
    const modelCallsUntilStop = async (answer: string) => {
      const t = countingTool("fetch_report", () => answer);
      const { model, messages } = await run(
        [new ProgressAwareLoopGuardMiddleware()],
        [t.tool],
        repeat(20, call("fetch_report", { id: 1 })),
      );
      expect(lastText(messages)).toMatch(/Run stopped/);
      return model.callCount;
    };
    expect(await modelCallsUntilStop("Error: upstream timeout")).toBeLessThan(
      await modelCallsUntilStop("report: 3 rows"),
    );
  });

  it("does not interfere when tests are re-run after each edit", async () => {
    const tests = countingTool("run_tests", () => "1 failed: test_parse");
    const edit = countingTool("edit_file", () => "edited");
    const turns = [1, 2, 3, 4].flatMap((i) => [call("run_tests"), call("edit_file", { patch: `attempt ${i}` })]);
    const { messages } = await run(
      [new ProgressAwareLoopGuardMiddleware()],
      [tests.tool, edit.tool],
      [...turns, call("run_tests"), { text: "gave up" }],
    );
    expect(tests.counter.runs).toBe(5);
    expect(guardAnswers(messages)).toHaveLength(0);
  });

  it("catches an A-B-A-B cycle where neither side returns anything new", async () => {
    const click = countingTool("click", () => "Page: Results (1 of 3)");
    const back = countingTool("go_back", () => "Page: Search");
    const turns = Array.from({ length: 6 }, () => [call("click", { element: "Next" }), call("go_back")]).flat();
    const signals: Signal[] = [];
    await run(
      [new ProgressAwareLoopGuardMiddleware({ onSignal: (s) => signals.push(s) })],
      [click.tool, back.tool],
      turns,
    );
    // click, back, click (same page again), back (same page again): the 3rd click is refused.
    expect(signals[0]).toMatchObject({ action: "directive", tool: "click" });
    expect(back.counter.runs + click.counter.runs).toBe(4);
  });

  it("catches cosmetic churn in a rewritten todo list through deltaOverrides", async () => {
    const todos = countingTool("write_todos", () => "saved");
    const words = ["trip", "journey", "voyage", "tour", "travel", "outing"];
    const turns = words.map((w) =>
      call("write_todos", {
        todos: [
          { id: 1, content: `plan the ${w}` },
          { id: 2, content: "book" },
        ],
      }),
    );
    const guard = new ProgressAwareLoopGuardMiddleware({
      deltaOverrides: { write_todos: makeSetMembershipDelta("todos", "id") },
    });
    const { messages } = await run([guard], [todos.tool], turns);
    expect(todos.counter.runs).toBe(2);
    expect(lastText(messages)).toMatch(/Run stopped/);
  });

  it("refuses a parallel duplicate and keeps the pairing intact", async () => {
    const search = countingTool("search_flights", (input) => `flights for ${JSON.stringify(input)}`);
    const turn: ScriptedTurn = {
      toolCalls: [
        { name: "search_flights", args: { to: "SFO" } },
        { name: "search_flights", args: { to: "LAX" } },
        { name: "search_flights", args: { to: "SFO" } },
      ],
    };
    const { messages } = await run([new ProgressAwareLoopGuardMiddleware()], [search.tool], [turn, { text: "done" }]);
    expect(search.counter.runs).toBe(2);
    expect(guardAnswers(messages)).toHaveLength(1);
    expect(lastText(messages)).toBe("done");
  });

  it("in observe-only mode signals but never blocks", async () => {
    const status = countingTool("job_status", () => "running");
    const signals: Signal[] = [];
    await run(
      [new ProgressAwareLoopGuardMiddleware({ observeOnly: true, onSignal: (s) => signals.push(s) })],
      [status.tool],
      [...repeat(5, call("job_status")), { text: "ok" }],
    );
    expect(status.counter.runs).toBe(5);
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.every((s) => s.detail?.observeOnly === true)).toBe(true);
  });
});

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
