import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AIMessage } from "@langchain/core/messages";
import { ProgressAwareLoopGuardMiddleware } from "../../src/index.js";
import { DEFAULT_OBSERVATION_OPTIONS, observationsFor } from "../../src/observe/shared.js";
import { ledgerFor } from "../../src/guards/runaway/ledger.js";
import { forgetThread, replayAndForget } from "../../src/replay/forgetThread.js";
import { replayThread } from "../../src/replay/replayThread.js";
import { buildReplaySetup } from "../../src/replay/config.js";
import { evaluateSources } from "../../src/replay/evaluate.js";
import { history } from "../helpers/history.js";

const repeats = (n: number) =>
  Array.from({ length: n }, () => ({ tool: "get_order", args: { id: "A1" }, result: "status: pending" }));

describe("forgetThread", () => {
  it("drops a replayed thread's stores and ledger: the next judgement starts afresh, to the same decisions", async () => {
    const messages = history(repeats(4), { pendingLast: true });
    const guard = new ProgressAwareLoopGuardMiddleware();
    const pending = (messages.at(-1) as AIMessage).tool_calls!.map(({ id, name, args }) => ({ id: id!, name, args }));
    const before = await guard.evaluate(messages, pending);
    const store = (await observationsFor(messages, DEFAULT_OBSERVATION_OPTIONS)).store;
    const ledger = ledgerFor(messages);
    expect((await observationsFor(messages, DEFAULT_OBSERVATION_OPTIONS)).store).toBe(store);
    expect(ledgerFor(messages)).toBe(ledger);

    forgetThread(messages);

    expect((await observationsFor(messages, DEFAULT_OBSERVATION_OPTIONS)).store).not.toBe(store);
    expect(ledgerFor(messages)).not.toBe(ledger);
    expect(await guard.evaluate(messages, pending)).toEqual(before);
    expect(before.some(({ decision }) => decision.action !== "allow")).toBe(true);
  });

  it("replayAndForget gives replayThread's result and leaves no store of the thread behind", async () => {
    const messages = history(repeats(4));
    const { stack } = buildReplaySetup();
    const kept = await replayThread(messages, stack);
    const store = (await observationsFor(messages, DEFAULT_OBSERVATION_OPTIONS)).store;

    const replayed = await replayAndForget(messages, stack);

    expect(replayed.decisions).toEqual(kept.decisions);
    expect(replayed.decisions.length).toBeGreaterThan(0);
    expect((await observationsFor(messages, DEFAULT_OBSERVATION_OPTIONS)).store).not.toBe(store);
  });

  it("leaves a history of no messages, or of plain values, alone", () => {
    expect(() => forgetThread([])).not.toThrow();
    expect(() => forgetThread(["text"])).not.toThrow();
  });

  it("eval gives the same totals when the same thread is replayed twice in a row", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hk-forget-"));
    const messages = history(repeats(6)).map((m) => ({
      type: m.getType(),
      content: m.content,
      ...("tool_calls" in m ? { tool_calls: m.tool_calls } : {}),
      ...("tool_call_id" in m ? { tool_call_id: m.tool_call_id } : {}),
    }));
    const path = join(dir, "t.json");
    writeFileSync(path, JSON.stringify({ id: "t", messages }));
    const once = await evaluateSources([{ kind: "file", path }], buildReplaySetup());
    const twice = await evaluateSources(
      [
        { kind: "file", path },
        { kind: "file", path },
      ],
      buildReplaySetup(),
    );
    expect(twice.toolCalls).toBe(2 * once.toolCalls);
    for (const [guard, counts] of Object.entries(once.decisions))
      for (const [action, n] of Object.entries(counts))
        expect(twice.decisions[guard]![action as keyof typeof counts]).toBe(2 * n);
    expect(Object.values(once.decisions).some((c) => c.directive + c.stop + c.warn > 0)).toBe(true);
  });
});
