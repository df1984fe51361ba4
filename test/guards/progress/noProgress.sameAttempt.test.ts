import { describe, expect, it } from "vitest";
import { ProgressAwareLoopGuardMiddleware } from "../../../src/index.js";
import { pendingToolCalls } from "../../../src/core/messages.js";
import { history, type Step } from "../../helpers/history.js";

// Issue 27's three kinds: what makes two calls "the same attempt" and an answer "nothing new".
const progress = new ProgressAwareLoopGuardMiddleware();

async function actionOnLast(steps: Step[]): Promise<string> {
  const messages = history(steps, { pendingLast: true });
  const [decision] = await progress.evaluate(messages, pendingToolCalls(messages));
  return decision!.decision.action;
}

const update = (payment: string, cabin = "economy", last = "HAT252") => ({
  tool: "update_reservation_flights",
  args: {
    reservation_id: "XEWRD9",
    cabin,
    flights: [
      { flight_number: "HAT030", date: "2024-05-13" },
      { flight_number: last, date: "2024-05-21" },
    ],
    payment_id: payment,
  },
  result: "Error: flight HAT030 not available on date 2024-05-13",
  status: "error" as const,
});
const search = (to: string) => ({
  tool: "search_direct_flight",
  args: { origin: "JFK", destination: to },
  result: `[{"flight": "${to}1"}]`,
});

describe("a call failing the same way while a field the failure is not about changes", () => {
  it("is the same attempt: the third gets a directive", async () => {
    expect(await actionOnLast([update("gift_card_1"), update("credit_card_2")])).toBe("allow");
    expect(
      await actionOnLast([update("gift_card_1"), update("credit_card_2"), update("credit_card_3", "business")]),
    ).toBe("directive");
    // another segment kept, the unavailable one still in: still the same attempt
    expect(
      await actionOnLast([
        update("gift_card_1"),
        search("SFO"),
        update("gift_card_1", "economy", "HAT102"),
        update("gift_card_1", "economy", "HAT124"),
      ]),
    ).toBe("directive");
  });

  it("a chatty user turn in between does not make it a new attempt", async () => {
    expect(
      await actionOnLast([
        update("gift_card_1"),
        { human: "ok, try my credit card then, thanks!" },
        update("credit_card_2"),
        { human: "hmm" },
        update("credit_card_3"),
      ]),
    ).toBe("directive");
  });

  it("is another attempt once a field the failure names changes", async () => {
    const other = {
      ...update("gift_card_1"),
      args: { ...update("gift_card_1").args, flights: [{ flight_number: "HAT031", date: "2024-05-13" }] },
    };
    expect(await actionOnLast([update("gift_card_1"), update("credit_card_2"), other])).toBe("allow");
  });

  it("is another attempt when the failure names none of the arguments (another card, not enough balance)", async () => {
    const pay = (card: string) => ({
      tool: "update_reservation_flights",
      args: { reservation_id: "OBUT9V", payment_id: card },
      result: "Error: gift card balance is not enough",
      status: "error" as const,
    });
    expect(await actionOnLast([pay("gift_card_1"), pay("gift_card_2"), pay("gift_card_3")])).toBe("allow");
  });
});

describe("an answer that differs only in a visit notice, a relative time or a counter", () => {
  const page = (notice: string) => ({
    tool: "FileSurfer",
    args: { request: "open the file 'a.mp3' and read it" },
    result: `Address: file:///a.mp3\n${notice}Viewport position: Showing page 1 of 1.\nError. Could not transcribe this audio.`,
  });

  it("is stale at once: the notice that only a repeat carries is no news", async () => {
    expect(await actionOnLast([page(""), page("You previously visited this page 11 seconds ago.\n"), page("")])).toBe(
      "directive",
    );
    expect(
      await actionOnLast([
        page("This page was last loaded at 12:03:44.\n"),
        page("This page was last loaded at 12:04:10.\n"),
        page(""),
      ]),
    ).toBe("directive");
  });

  it("a counter of the asking is no news, a moving value is", async () => {
    const status = (line: string) => ({ tool: "job_status", args: { id: 7 }, result: `status: running\n${line}` });
    expect(await actionOnLast([status("attempt 1"), status("attempt 2"), status("attempt 3")])).toBe("directive");
    expect(await actionOnLast([status("progress 10%"), status("progress 20%"), status("progress 30%")])).toBe("allow");
  });
});

describe("the same read-only command with the same output, other calls between", () => {
  const bash = (command: string, result: string) => ({ tool: "bash", args: { command }, result });
  const catRst = bash(
    "cat astropy/io/ascii/rst.py",
    "<returncode>0</returncode><output>class RST(FixedWidth):\n    pass</output>",
  );
  const otherRead = (n: number) =>
    bash(`grep -n "def write" file${n}.py`, `<returncode>0</returncode><output>${n}: def write(self):</output>`);

  it("the third identical read with an identical answer is a loop", async () => {
    expect(await actionOnLast([catRst, otherRead(1), catRst, otherRead(2)])).toBe("allow");
    expect(await actionOnLast([catRst, otherRead(1), catRst, otherRead(2), otherRead(3), catRst])).toBe("directive");
  });

  it("not after an edit, nor after a test run whose output changed", async () => {
    const edit = bash(
      "sed -i 's/pass/return 1/' astropy/io/ascii/rst.py",
      "<returncode>0</returncode><output></output>",
    );
    expect(await actionOnLast([catRst, otherRead(1), edit, catRst, otherRead(2), catRst])).toBe("allow");
    const test = (out: string) =>
      bash("python -m pytest tests/test_rst.py", `<returncode>1</returncode><output>${out}</output>`);
    expect(await actionOnLast([catRst, test("1 failed"), catRst, test("2 failed"), catRst])).toBe("allow");
  });

  it("a summary or a chatty user message in between does not reset it", async () => {
    expect(await actionOnLast([catRst, otherRead(1), catRst, { human: "thanks, keep going" }, catRst])).toBe(
      "directive",
    );
  });
});
