import { describe, expect, it } from "vitest";
import { AIMessage } from "@langchain/core/messages";
import { ProgressAwareLoopGuardMiddleware, type Signal } from "../../../src/index.js";
import { makeSetMembershipDelta } from "../../../src/observe.js";
import type { ScriptedTurn } from "../../../src/testing/index.js";
import { call, countingTool, guardAnswers, lastText, repeat, run } from "../../helpers/loopAgent.js";

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
