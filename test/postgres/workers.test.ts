import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { CARRY_KEY, type Carried } from "../../src/hooks/carry.js";
import { isSummary } from "../../src/core/messages.js";
import { LangGraphOffloadStore, type Signal } from "../../src/index.js";
import { assertToolCallPairing } from "../../src/testing/index.js";
import { startEmbeddedPostgres } from "./embeddedPostgres.js";
import { decisionsOf, latestKey, reportText, scenarioAgent, SCRIPTS, startMessage, SUMMARISED } from "./scenario.js";
import { runOnWorkers, type PoolRun } from "./workerPool.js";

/**
 * Issue 16: the recommended stack on a real Postgres server, with four worker processes taking
 * turns on the same threads as LangGraph deployments do. Every step resumes from PostgresSaver;
 * offloads go to PostgresStore through LangGraphOffloadStore.
 */

const postgres = await startEmbeddedPostgres();
if (postgres.skipped) console.log(`Postgres tests skipped: ${postgres.skipped}`);

const SCRIPT_NAMES = Object.keys(SCRIPTS);
const threadOf = (script: string) => `workers/${script}`;

interface Reference {
  messages: Map<string, BaseMessage[]>;
  signals: Map<string, Signal[]>;
}

/** Every script run to its end in this one process, on an in-memory saver and store. */
async function runInOneProcess(): Promise<Reference> {
  const reference: Reference = { messages: new Map(), signals: new Map() };
  for (const script of SCRIPT_NAMES) {
    const signals: Signal[] = [];
    const agent = scenarioAgent({
      checkpointer: new MemorySaver(),
      offloadStore: new LangGraphOffloadStore({ store: new InMemoryStore() }),
      summarised: SUMMARISED.has(script),
      onSignal: (signal) => void signals.push(signal),
    });
    const result = await agent.invoke(
      { messages: [startMessage(script)] },
      { configurable: { thread_id: threadOf(script) }, recursionLimit: 500 },
    );
    reference.messages.set(script, result.messages);
    reference.signals.set(script, signals);
  }
  return reference;
}

/** Signals in call order: parallel calls of one batch may signal in either order. */
const byCall = (signals: readonly Signal[]) =>
  [...signals].sort((a, b) => (a.toolCallId ?? "").localeCompare(b.toolCallId ?? ""));

describe.skipIf(postgres.skipped !== undefined)("guards on Postgres with four workers (issue 16)", () => {
  const url = postgres.server?.url ?? "";
  let saver: PostgresSaver;
  let store: PostgresStore;
  let run: PoolRun;
  let reference: Reference;
  const stored = new Map<string, { messages: BaseMessage[]; carried: Carried[] }>();

  beforeAll(async () => {
    saver = PostgresSaver.fromConnString(url);
    store = PostgresStore.fromConnString(url);
    await Promise.all([saver.setup(), store.setup()]);
    [run, reference] = await Promise.all([
      runOnWorkers(
        url,
        SCRIPT_NAMES.map((script) => ({ threadId: threadOf(script), script, killAfterOffload: script === "kill" })),
        4,
      ),
      runInOneProcess(),
    ]);
    for (const script of SCRIPT_NAMES) {
      const tuple = await saver.getTuple({ configurable: { thread_id: threadOf(script) } });
      const values = tuple!.checkpoint.channel_values as { messages: BaseMessage[]; [CARRY_KEY]?: Carried[] };
      stored.set(script, { messages: values.messages, carried: values[CARRY_KEY] ?? [] });
    }
  }, 120_000);

  afterAll(async () => {
    await saver?.end();
    await store?.stop();
    await postgres.server?.stop();
  });

  it("every step resumed from Postgres on whichever worker was free, and threads changed workers", () => {
    for (const script of SCRIPT_NAMES) {
      const steps = run.steps.filter((s) => s.threadId === threadOf(script));
      expect(steps.length, script).toBeGreaterThanOrEqual(4);
      expect(new Set(steps.map((s) => s.worker)).size, script).toBeGreaterThanOrEqual(3);
    }
  });

  it("decisions equal a single-process run of the same scripts", () => {
    for (const script of SCRIPT_NAMES) {
      const { messages } = stored.get(script)!;
      assertToolCallPairing(messages);
      expect(decisionsOf(messages), script).toEqual(decisionsOf(reference.messages.get(script)!));
    }
    // The scripts do reach the guards: refusals, stops, offloads.
    const marks = SCRIPT_NAMES.flatMap((s) => decisionsOf(stored.get(s)!.messages)).map(
      (d) => (d as { mark?: { guard: string; action: string } }).mark,
    );
    expect(marks).toContainEqual(expect.objectContaining({ action: "directive" }));
    expect(marks).toContainEqual(expect.objectContaining({ action: "stop" }));
    expect(marks).toContainEqual(expect.objectContaining({ guard: "ToolResultBudgetMiddleware" }));
  });

  it("signals equal a single-process run's (a killed step's signals are re-emitted by its re-run)", () => {
    for (const script of SCRIPT_NAMES) {
      expect(byCall(run.signals.get(threadOf(script))!), script).toEqual(byCall(reference.signals.get(script)!));
    }
    expect([...run.signals.values()].flat().length).toBeGreaterThan(5);
  });

  it("a result offloaded by one worker is read back by read_stored_result on another", async () => {
    const thread = threadOf("offload");
    const [offload] = run.offloads.filter((o) => o.threadId === thread);
    const readBack = run.steps.find((s) => s.threadId === thread && s.answered.includes("off-2"))!;
    expect(offload).toBeDefined();
    expect(readBack.worker).not.toBe(offload!.worker);
    const answer = stored
      .get("offload")!
      .messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === "off-2")!;
    expect(String(answer.content)).toContain(reportText(1).slice(20_000, 20_200));
    const item = await store.get(new LangGraphOffloadStore({ store }).namespaceFor(thread), offload!.key);
    expect(item?.value.content).toBe(reportText(1));
  });

  it("a worker killed in the middle of a tool step leaves the thread resumable; the re-run neither duplicates nor loses the offload", async () => {
    const thread = threadOf("kill");
    expect(run.killed).toHaveLength(1);
    const [killed] = run.killed;
    // The killed worker had run the tool and stored its result; the re-run, elsewhere, did both again (at-least-once).
    const reportRuns = run.toolRuns.filter((r) => r.threadId === thread && r.toolCallId === "kill-1");
    expect(reportRuns.map((r) => r.worker)).toContain(killed!.worker);
    expect(reportRuns.length).toBe(2);
    // The other call of that batch had finished before the crash: LangGraph kept its result, and it did not run again.
    expect(run.toolRuns.filter((r) => r.threadId === thread && r.toolCallId === "kill-2").map((r) => r.worker)).toEqual(
      [killed!.worker],
    );
    const offloads = run.offloads.filter((o) => o.threadId === thread);
    expect(offloads).toHaveLength(2);
    expect(offloads[1]!.worker).not.toBe(killed!.worker);
    // Same key both times: the re-run wrote the same item again, and the thread's one preview names it.
    expect(offloads[0]!.key).toBe(offloads[1]!.key);
    const { messages } = stored.get("kill")!;
    expect(
      latestKey(
        messages.slice(0, messages.findIndex((m) => ToolMessage.isInstance(m) && m.tool_call_id === "kill-2") + 1),
      ),
    ).toBe(offloads[0]!.key);
    const items = await store.search(new LangGraphOffloadStore({ store }).namespaceFor(thread));
    expect(items.map((i) => i.key)).toEqual([offloads[0]!.key]);
    expect(items[0]!.value.content).toBe(reportText(3));
    // And the model read it back after the crash.
    const search = messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === "kill-3")!;
    expect(String(search.content)).toContain("report 3 line 599");
  });

  it("what the guards carry across a summary is in the Postgres checkpoint and judged on other workers", () => {
    const { messages, carried } = stored.get("carry")!;
    expect(messages.some(isSummary)).toBe(true);
    // The polls the summaries removed are carried in the checkpoint, answers included.
    const inMessages = new Set(messages.filter(ToolMessage.isInstance).map((m) => m.tool_call_id));
    const carriedAnswers = carried
      .filter((m): m is Carried & ToolMessage => ToolMessage.isInstance(m))
      .map((m) => m.tool_call_id);
    expect(carriedAnswers.filter((id) => !inMessages.has(id)).length).toBeGreaterThanOrEqual(3);
    // The polls are stopped (at the same call as in one process, see above) by counting polls the
    // messages no longer hold, with the steps since the first summary spread over workers.
    const stopAt = messages.find(
      (m) =>
        ToolMessage.isInstance(m) &&
        (m.response_metadata as { harness_kit?: { action?: string } }).harness_kit?.action === "stop",
    ) as ToolMessage;
    const pollsBefore = Number(stopAt.tool_call_id.replace("carry-", ""));
    expect(pollsBefore).toBeGreaterThan(messages.filter(ToolMessage.isInstance).length);
    const steps = run.steps.filter((s) => s.threadId === threadOf("carry"));
    const firstSummary = steps.findIndex((s) => s.nodes.some((n) => /summar/i.test(n)));
    const stopStep = steps.findIndex((s) => s.answered.includes(stopAt.tool_call_id));
    expect(firstSummary).toBeGreaterThanOrEqual(0);
    expect(new Set(steps.slice(firstSummary, stopStep + 1).map((s) => s.worker)).size).toBeGreaterThanOrEqual(3);
  });
});
