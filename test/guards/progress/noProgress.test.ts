import { describe, expect, it } from "vitest";
import { LoopGuardMiddleware, ProgressAwareLoopGuardMiddleware } from "../../../src/index.js";
import { makeSetMembershipDelta } from "../../../src/observe.js";
import { pendingToolCalls } from "../../../src/core/messages.js";
import { history, type Step } from "../../helpers/history.js";

type Guard = { evaluate: LoopGuardMiddleware["evaluate"] };

/** Actions the guard takes on the pending (last) step of `steps`. */
async function actions(guard: Guard, steps: Step[]): Promise<string[]> {
  const messages = history(steps, { pendingLast: true });
  const decisions = await guard.evaluate(messages, pendingToolCalls(messages));
  return decisions.map((d) => d.decision.action);
}

const progress = new ProgressAwareLoopGuardMiddleware();
const poll = (at: string) => ({
  tool: "job_status",
  args: { id: 7 },
  result: `{"status":"running","checked_at":"${at}","request_id":"r-${at}"}`,
});
const failingBooking = {
  tool: "book_reservation",
  args: { flight: "HAT001" },
  result: "Error: payment method declined",
  status: "error" as const,
};
const think = (thought: string) => ({ tool: "think", args: { thought } });
const runTests = (output = "FAILED test_x") => ({ tool: "run_tests", args: {}, result: output });

describe("ProgressAwareLoopGuard decisions", () => {
  it("flags a poll whose answer changes only in a timestamp or request id", async () => {
    expect(await actions(progress, [poll("2024-01-01T00:00:01Z"), poll("2024-01-01T00:00:05Z")])).toEqual(["allow"]);
    expect(
      await actions(progress, [
        poll("2024-01-01T00:00:01Z"),
        poll("2024-01-01T00:00:05Z"),
        poll("2024-01-01T00:00:09Z"),
      ]),
    ).toEqual(["directive"]);
  });

  it("lets a poll through when the status really changes", async () => {
    const status = (s: string) => ({ tool: "job_status", args: { id: 7 }, result: `{"status":"${s}"}` });
    expect(await actions(progress, [status("queued"), status("running"), status("running 50%"), status("x")])).toEqual([
      "allow",
    ]);
  });

  it("allows pagination with a server-held cursor: same arguments, a new page each time", async () => {
    const page = (n: number) => ({ tool: "next_page", args: {}, result: `item ${n * 2}\nitem ${n * 2 + 1}` });
    expect(await actions(progress, [page(1), page(2), page(3), page(4), page(5), page(6)])).toEqual(["allow"]);
  });

  it("allows tailing that shows new lines", async () => {
    const tail = (n: number) => ({
      tool: "tail_log",
      args: { lines: 3 },
      result: [n, n + 1, n + 2].map((i) => `line ${i}`).join("\n"),
    });
    expect(await actions(progress, [tail(1), tail(2), tail(3), tail(4)])).toEqual(["allow"]);
  });

  it("flags the same failing call repeated with think calls in between", async () => {
    expect(
      await actions(progress, [failingBooking, think("retry"), failingBooking, think("again"), failingBooking]),
    ).toEqual(["directive"]);
  });

  it("flags a failing call interleaved with reads that return nothing new", async () => {
    const read = { tool: "get_user_details", args: { id: "u1" }, result: "{...}" };
    expect(await actions(progress, [failingBooking, read, failingBooking, read, failingBooking])).toEqual([
      "directive",
    ]);
  });

  it("resets the judgement after a state-changing call: edit, then re-run tests", async () => {
    const edit = (n: number) => ({ tool: "edit_file", args: { patch: n } });
    expect(
      await actions(progress, [runTests(), edit(1), runTests(), edit(2), runTests(), edit(3), runTests()]),
    ).toEqual(["allow"]);
    expect(await actions(progress, [runTests(), runTests(), runTests()])).toEqual(["directive"]);
  });

  it("resets the judgement on a new user message", async () => {
    expect(
      await actions(progress, [poll("1"), poll("2"), { human: "check again please" }, poll("3"), poll("4")]),
    ).toEqual(["allow"]);
  });

  it("flags A-B-A-B cycles where neither side returns anything new", async () => {
    const a = { tool: "click", args: { element: "Next" }, result: "page 1" };
    const b = { tool: "scroll_up", args: {}, result: "page 1 top" };
    expect(await actions(progress, [a, b, a, b, a, b])).toEqual(["directive"]);
  });

  it("flags an A-B cycle of stale results by the third occurrence of either call", async () => {
    const a = { tool: "click", args: { element: "Next" }, result: "Results page, 10 items" };
    const b = { tool: "go_back", args: {}, result: "Search page" };
    expect(await actions(progress, [a, b, a, b])).toEqual(["allow"]);
    expect(await actions(progress, [a, b, a, b, a])).toEqual(["directive"]);
    // A read whose answer changed with the other call is not a cycle.
    const page = (n: number) => ({ tool: "click", args: { element: "Next" }, result: `Results page ${n}` });
    expect(await actions(progress, [page(1), b, page(2), b, page(3)])).toEqual(["allow"]);
  });

  it("keeps counting a call that fails the same way across user messages; another call only across messages that are not about it", async () => {
    const user = { human: "You seem confused, please just do it." };
    expect(await actions(progress, [failingBooking, user, failingBooking, user, failingBooking])).toEqual([
      "directive",
    ]);
    const read = { tool: "get_reservation", args: { id: "XEWRD9" }, result: '{"flights": 2}' };
    // A chatty turn names nothing the call reads: the stale read is still stale.
    expect(await actions(progress, [read, read, user, read])).toEqual(["directive"]);
    // A message about the call (its reservation named, or a request to look again) starts over.
    expect(
      await actions(progress, [read, read, { human: "I changed reservation XEWRD9 on the website" }, read]),
    ).toEqual(["allow"]);
    expect(await actions(progress, [read, read, { human: "Could you look once more?" }, read])).toEqual(["allow"]);
    // A different error is news: the world answered differently.
    const other = { ...failingBooking, result: "Error: seat map unavailable" };
    expect(await actions(progress, [failingBooking, user, other, user, failingBooking])).toEqual(["allow"]);
  });

  it("matches near-duplicate calls only when their result is stale too", async () => {
    const booking = (extra: Record<string, unknown>) => ({
      ...failingBooking,
      args: { flight: "HAT001", seats: [{ row: 3 }], ...extra },
    });
    // One field added, the same error: the same failing call.
    expect(await actions(progress, [booking({}), booking({}), booking({ insurance: "no" })])).toEqual(["directive"]);
    // A changed value is another attempt (another card, another amount), even with the same error.
    const card = (id: string) => ({
      tool: "pay",
      args: { card: id },
      result: "Error: balance is not enough",
      status: "error" as const,
    });
    expect(await actions(progress, [card("gift_1"), card("gift_2"), card("gift_3")])).toEqual(["allow"]);
    // A request reworded, answered with the same stub.
    const stub = "Address: file:///workspace/book.pdf\nTitle: Download complete.\nSaved file to '/workspace/book.pdf'";
    const ask = (request: string) => ({ tool: "FileSurfer", args: { request }, result: stub });
    expect(
      await actions(progress, [
        ask(
          "Please open the local file book.pdf, go to page 11 and read the second-to-last paragraph and its endnote.",
        ),
        ask(
          "Please open the file book.pdf, navigate to page 11, locate the second-to-last paragraph and report its endnote.",
        ),
        ask(
          "Open the local file book.pdf, go to page 11, and report the endnote of the second-to-last paragraph please.",
        ),
      ]),
    ).toEqual(["directive"]);
    // Different queries with the same empty answer are exploration.
    const search = (q: string) => ({ tool: "search_docs", args: { query: q }, result: "[]" });
    expect(
      await actions(progress, [
        search("refund policy for cancelled flights"),
        search("cancelled flight refund rules"),
        search("refund after cancellation"),
      ]),
    ).toEqual(["allow"]);
  });

  it("compares code after normalisation, and near-identical code only once a run was repeated in vain", async () => {
    const code = (source: string, output = "X") => ({
      tool: "execute_code",
      args: { code: source },
      result: `exitcode: 0\nCode output: ${output}`,
    });
    const head =
      "tropicos_id = '8200000'.zfill(9)\ntotal = sum(int(digit) * (i + 1) for i, digit in enumerate(tropicos_id))\nd = total % 11\n";
    const v1 = `${head}c = 'X' if d == 10 else str(d)\nprint(c)`;
    const v2 = `${head}if d == 10:\n    c = 'X'\nelse:\n    c = str(d)\nprint(c)`;
    const commented = `# ISBN-10 check digit\n${head}c = 'X' if d == 10 else str(d)\nprint(c)  # prints X`;
    expect(await actions(progress, [code(v1), code(commented), code(v1)])).toEqual(["directive"]);
    expect(await actions(progress, [code(v1), code(v1), code(v2)])).toEqual(["directive"]);
    // Two different experiments with the same output are not a repeat.
    const variant = (sep: string) => ({
      tool: "bash",
      args: { command: `pylint --names="foo${sep}bar" a.py` },
      result: "a.py:1:0: disallowed name foo",
    });
    expect(await actions(progress, [variant(","), variant(", "), variant(",,")])).toEqual(["allow"]);
  });

  it("waits longer on a polling tool, and never counts polls that show progress", async () => {
    const polling = new ProgressAwareLoopGuardMiddleware({ pollingTools: ["job_status"], pollPatience: 3 });
    const stuck = { tool: "job_status", args: { id: 7 }, result: '{"state":"running","progress":40}' };
    expect(await actions(polling, [stuck, stuck, stuck])).toEqual(["allow"]);
    expect(await actions(polling, [stuck, stuck, stuck, stuck, stuck])).toEqual(["directive"]);
    const moving = (n: number) => ({
      tool: "job_status",
      args: { id: 7 },
      result: `{"state":"running","progress":${11 * n}}`,
    });
    expect(
      await actions(
        polling,
        Array.from({ length: 9 }, (_, i) => moving(i + 1)),
      ),
    ).toEqual(["allow"]);
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
    const todos = (word: string) => ({
      tool: "write_todos",
      args: {
        todos: [
          { id: 1, content: `plan the ${word}` },
          { id: 2, content: "ship" },
        ],
      },
    });
    expect(await actions(guard, [todos("trip"), todos("journey"), todos("voyage")])).toEqual(["directive"]);
    expect(await actions(progress, [todos("trip"), todos("journey"), todos("voyage")])).toEqual(["allow"]);
  });

  it("refuses a duplicate inside one parallel batch", async () => {
    const search = { tool: "search", args: { q: "flights" } };
    expect(await actions(progress, [{ batch: [search, { tool: "search", args: { q: "hotels" } }, search] }])).toEqual([
      "allow",
      "allow",
      "directive",
    ]);
  });

  it("ignores no-op tools entirely", async () => {
    expect(await actions(progress, [think("a"), think("a"), think("a"), think("a")])).toEqual(["allow"]);
  });

  it("rejects nonsensical options with a clear error", () => {
    expect(() => new ProgressAwareLoopGuardMiddleware({ progressFloor: 1.5 })).toThrow(/progressFloor/);
  });
});
