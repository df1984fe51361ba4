import { describe, expect, it } from "vitest";
import { LoopGuardMiddleware, makeSetMembershipDelta, ProgressAwareLoopGuardMiddleware } from "../../src/index.js";
import { pendingToolCalls } from "../../src/core/messages.js";
import { history, type Step } from "../helpers/history.js";

type Guard = { evaluate: LoopGuardMiddleware["evaluate"] };

/** Actions the guard takes on the pending (last) step of `steps`. */
async function actions(guard: Guard, steps: Step[]): Promise<string[]> {
  const messages = history(steps, { pendingLast: true });
  const decisions = await guard.evaluate(messages, pendingToolCalls(messages));
  return decisions.map((d) => d.decision.action);
}

const progress = new ProgressAwareLoopGuardMiddleware();
const poll = (at: string) => ({ tool: "job_status", args: { id: 7 }, result: `{"status":"running","checked_at":"${at}","request_id":"r-${at}"}` });
const failingBooking = { tool: "book_reservation", args: { flight: "HAT001" }, result: "Error: payment method declined", status: "error" as const };
const think = (thought: string) => ({ tool: "think", args: { thought } });
const runTests = (output = "FAILED test_x") => ({ tool: "run_tests", args: {}, result: output });

describe("ProgressAwareLoopGuard decisions", () => {
  it("flags a poll whose answer changes only in a timestamp or request id", async () => {
    expect(await actions(progress, [poll("2024-01-01T00:00:01Z"), poll("2024-01-01T00:00:05Z")])).toEqual(["allow"]);
    expect(await actions(progress, [poll("2024-01-01T00:00:01Z"), poll("2024-01-01T00:00:05Z"), poll("2024-01-01T00:00:09Z")])).toEqual(["directive"]);
  });

  it("lets a poll through when the status really changes", async () => {
    const status = (s: string) => ({ tool: "job_status", args: { id: 7 }, result: `{"status":"${s}"}` });
    expect(await actions(progress, [status("queued"), status("running"), status("running 50%"), status("x")])).toEqual(["allow"]);
  });

  it("allows pagination with a server-held cursor: same arguments, a new page each time", async () => {
    const page = (n: number) => ({ tool: "next_page", args: {}, result: `item ${n * 2}\nitem ${n * 2 + 1}` });
    expect(await actions(progress, [page(1), page(2), page(3), page(4), page(5), page(6)])).toEqual(["allow"]);
  });

  it("allows tailing that shows new lines", async () => {
    const tail = (n: number) => ({ tool: "tail_log", args: { lines: 3 }, result: [n, n + 1, n + 2].map((i) => `line ${i}`).join("\n") });
    expect(await actions(progress, [tail(1), tail(2), tail(3), tail(4)])).toEqual(["allow"]);
  });

  it("flags the same failing call repeated with think calls in between", async () => {
    expect(await actions(progress, [failingBooking, think("retry"), failingBooking, think("again"), failingBooking])).toEqual(["directive"]);
  });

  it("flags a failing call interleaved with reads that return nothing new", async () => {
    const read = { tool: "get_user_details", args: { id: "u1" }, result: "{...}" };
    expect(await actions(progress, [failingBooking, read, failingBooking, read, failingBooking])).toEqual(["directive"]);
  });

  it("resets the judgement after a state-changing call: edit, then re-run tests", async () => {
    const edit = (n: number) => ({ tool: "edit_file", args: { patch: n } });
    expect(await actions(progress, [runTests(), edit(1), runTests(), edit(2), runTests(), edit(3), runTests()])).toEqual(["allow"]);
    expect(await actions(progress, [runTests(), runTests(), runTests()])).toEqual(["directive"]);
  });

  it("resets the judgement on a new user message", async () => {
    expect(await actions(progress, [poll("1"), poll("2"), { human: "check again please" }, poll("3"), poll("4")])).toEqual(["allow"]);
  });

  it("flags A-B-A-B cycles where neither side returns anything new", async () => {
    const a = { tool: "click", args: { element: "Next" }, result: "page 1" };
    const b = { tool: "scroll_up", args: {}, result: "page 1 top" };
    expect(await actions(progress, [a, b, a, b, a, b])).toEqual(["directive"]);
  });

  it("flags a repeated error sooner than a repeated success", async () => {
    // Same position in the ladder (one real repeat so far): an error weighs more.
    const withDirective = async (step: typeof failingBooking | ReturnType<typeof runTests>) => {
      const messages = history([step, step, step], { pendingLast: true });
      const pending = pendingToolCalls(messages);
      const first = await progress.evaluate(messages, pending);
      return first[0]!.decision;
    };
    expect((await withDirective(failingBooking)).action).toBe("directive");
    expect((await withDirective(runTests())).action).toBe("directive");
    const errorDetail = (await withDirective(failingBooking)) as { detail?: { wasted: number } };
    const successDetail = (await withDirective(runTests())) as { detail?: { wasted: number } };
    expect(errorDetail.detail!.wasted).toBeGreaterThan(successDetail.detail!.wasted);
  });

  it("treats a todo list rewritten with cosmetic churn as no progress via deltaOverrides", async () => {
    const guard = new ProgressAwareLoopGuardMiddleware({
      deltaOverrides: { write_todos: makeSetMembershipDelta("todos", "id") },
    });
    const todos = (word: string) => ({ tool: "write_todos", args: { todos: [{ id: 1, content: `plan the ${word}` }, { id: 2, content: "ship" }] } });
    expect(await actions(guard, [todos("trip"), todos("journey"), todos("voyage")])).toEqual(["directive"]);
    expect(await actions(progress, [todos("trip"), todos("journey"), todos("voyage")])).toEqual(["allow"]);
  });

  it("refuses a duplicate inside one parallel batch", async () => {
    const search = { tool: "search", args: { q: "flights" } };
    expect(await actions(progress, [{ batch: [search, { tool: "search", args: { q: "hotels" } }, search] }])).toEqual(["allow", "allow", "directive"]);
  });

  it("ignores no-op tools entirely", async () => {
    expect(await actions(progress, [think("a"), think("a"), think("a"), think("a")])).toEqual(["allow"]);
  });
});

describe("LoopGuard decisions", () => {
  const guard = new LoopGuardMiddleware({ warnAt: 3, stopAt: 4 });
  const same = { tool: "search", args: { q: "x" }, result: "new each time?" };

  it("warns, then stops, on consecutive identical calls regardless of results", async () => {
    expect(await actions(guard, [same, same])).toEqual(["allow"]);
    expect(await actions(guard, [same, same, same])).toEqual(["warn"]);
    expect(await actions(guard, [same, same, same, same])).toEqual(["stop"]);
    expect(await actions(guard, [same])).toEqual(["allow"]);
  });

  it("counts duplicates inside one parallel batch", async () => {
    expect(await actions(guard, [same, { batch: [same, same] }])).toEqual(["allow", "warn"]);
    expect(await actions(guard, [same, same, { batch: [same, same] }])).toEqual(["warn", "stop"]);
  });

  it("a different call breaks the streak; an ignored tool does not", async () => {
    const other = { tool: "search", args: { q: "y" } };
    expect(await actions(guard, [same, same, other, same])).toEqual(["allow"]);
    expect(await actions(guard, [same, think("a"), same, think("b"), same, think("c"), same])).toEqual(["stop"]);
  });

  it("with a window, counts identical calls among the last N", async () => {
    const windowed = new LoopGuardMiddleware({ warnAt: 2, stopAt: 3, window: 5 });
    const other = (n: number) => ({ tool: "search", args: { q: n } });
    expect(await actions(windowed, [same, other(1), same, other(2), same])).toEqual(["stop"]);
    expect(await actions(windowed, [same, other(1), other(2), other(3), other(4), same])).toEqual(["allow"]);
  });

  it("a new user message starts the count over", async () => {
    expect(await actions(guard, [same, same, same, { human: "try once more" }, same])).toEqual(["allow"]);
  });

  it("rejects nonsensical options with a clear error", () => {
    expect(() => new LoopGuardMiddleware({ warnAt: 6, stopAt: 5 })).toThrow(/warnAt/);
    expect(() => new LoopGuardMiddleware({ stopAt: 0 })).toThrow(/stopAt/);
    expect(() => new LoopGuardMiddleware({ exitBehavior: "explode" as never })).toThrow(/exitBehavior/);
    expect(() => new ProgressAwareLoopGuardMiddleware({ progressFloor: 1.5 })).toThrow(/progressFloor/);
  });
});
