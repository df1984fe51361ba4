import { describe, expect, it } from "vitest";
import { LoopGuardMiddleware } from "../../../src/index.js";
import { pendingToolCalls } from "../../../src/core/messages.js";
import { history, type Step } from "../../helpers/history.js";

type Guard = { evaluate: LoopGuardMiddleware["evaluate"] };

/** Actions the guard takes on the pending (last) step of `steps`. */
async function actions(guard: Guard, steps: Step[]): Promise<string[]> {
  const messages = history(steps, { pendingLast: true });
  const decisions = await guard.evaluate(messages, pendingToolCalls(messages));
  return decisions.map((d) => d.decision.action);
}

const think = (thought: string) => ({ tool: "think", args: { thought } });

describe("LoopGuard decisions", () => {
  const guard = new LoopGuardMiddleware({ warnAt: 3, stopAt: 4 });
  const same = { tool: "search", args: { q: "x" }, result: "the same answer" };

  it("warns, then stops, on consecutive identical calls that bring nothing new", async () => {
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

  it("defers to progress: a poll whose answer moves, or a log that grows, is never counted", async () => {
    const poll = (n: number) => ({
      tool: "job_status",
      args: { id: 7 },
      result: `{"state":"running","progress":${11 * n}}`,
    });
    expect(
      await actions(
        guard,
        Array.from({ length: 9 }, (_, i) => poll(i + 1)),
      ),
    ).toEqual(["allow"]);
    const log: string[] = [];
    const tail = (n: number) => (
      log.push(`step ${n} done`),
      { tool: "tail_log", args: { path: "build.log" }, result: log.join("\n") }
    );
    expect(
      await actions(
        guard,
        Array.from({ length: 12 }, (_, i) => tail(i + 1)),
      ),
    ).toEqual(["allow"]);
    // Once the answers stop moving, the count starts from the last new one.
    expect(await actions(guard, [poll(1), poll(2), poll(2), poll(2), poll(2)])).toEqual(["stop"]);
  });

  it("counts spellings of one call as the same call", async () => {
    const spelled = (args: Record<string, unknown>) => ({ tool: "search", args, result: "the same answer" });
    expect(
      await actions(guard, [
        spelled({ q: "X", limit: 5 }),
        spelled({ limit: 5, q: "x " }),
        spelled({ Q: "x", limit: 5 }),
      ]),
    ).toEqual(["warn"]);
  });

  it("a new user message starts the count over", async () => {
    expect(await actions(guard, [same, same, same, { human: "try once more" }, same])).toEqual(["allow"]);
  });

  it("rejects nonsensical options with a clear error", () => {
    expect(() => new LoopGuardMiddleware({ warnAt: 6, stopAt: 5 })).toThrow(/warnAt/);
    expect(() => new LoopGuardMiddleware({ stopAt: 0 })).toThrow(/stopAt/);
    expect(() => new LoopGuardMiddleware({ exitBehavior: "explode" as never })).toThrow(/exitBehavior/);
  });
});
