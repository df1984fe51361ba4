import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import type { Signal } from "../../src/core/signals.js";
import type { RunawayReport } from "../../src/guards/runaway/report.js";
import { recommendedGuards, type RecommendedGuardsOptions } from "../../src/stack/recommendedGuards.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { VALID_ACCOUNT, accountSchema, readAccount, writeAccount } from "../guards/output/fixtures.js";

/** The recommended stack judges as one (issue 11, "The guards judge as one"), in a real createAgent graph. */

const INVALID_ACCOUNT = JSON.stringify({ id: 7, plan: "enterprise", seats: 3 });

function stack(turns: ScriptedTurn[], outputs: unknown[], options: RecommendedGuardsOptions = {}) {
  const signals: Signal[] = [];
  const reports: RunawayReport[] = [];
  const writes: unknown[] = [];
  let reads = 0;
  const pollJob = tool(async () => "progress 10%", {
    name: "poll_job",
    description: "Job status.",
    schema: z.object({ job: z.string() }),
  });
  const getAccount = tool(async () => outputs[Math.min(reads++, outputs.length - 1)] as string, {
    name: "get_account",
    description: "Reads an account.",
    schema: z.object({ id: z.number() }),
  });
  const updateAccount = tool(async (args) => (writes.push(args), "updated"), {
    name: "update_account",
    description: "Changes an account.",
    schema: z.object({ id: z.number(), seats: z.number() }),
  });
  const guards = recommendedGuards({
    writeTools: ["update_account"],
    outputSpecs: { get_account: { schema: accountSchema, onInvalid: "degrade" } },
    onSignal: (signal) => signals.push(signal),
    ...options,
    runaway: { onReport: (report) => reports.push(report), ...options.runaway },
  });
  const model = new ScriptedChatModel({ turns });
  const agent = createAgent({ model, tools: [getAccount, updateAccount, pollJob], middleware: guards.agent });
  return {
    model,
    signals,
    reports,
    writes,
    reads: () => reads,
    run: async (): Promise<BaseMessage[]> => (await agent.invoke({ messages: [new HumanMessage("go")] })).messages,
  };
}

const toolAnswers = (messages: readonly BaseMessage[]) =>
  messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
const guardOf = (m: BaseMessage) => (m.response_metadata as { harness_kit?: { guard?: string } }).harness_kit?.guard;

describe("an invalid output is a tool that ran with a bad result, not a refused call", () => {
  it("runs the retry the validator asked for, and a write once the output is valid again", async () => {
    const s = stack(
      [{ toolCalls: [readAccount] }, { toolCalls: [readAccount] }, { toolCalls: [writeAccount] }, { text: "done" }],
      [INVALID_ACCOUNT, VALID_ACCOUNT],
    );
    const messages = await s.run();
    assertToolCallPairing(messages);
    expect(s.reads()).toBe(2);
    expect(s.writes).toHaveLength(1);
    expect(s.signals.filter((signal) => signal.guard !== "OutputValidatorMiddleware")).toEqual([]);
    expect(String(messages.at(-1)!.content)).toBe("done");
  });

  it("still stops retrying the same invalid output: the progress guard refuses the third identical read", async () => {
    const s = stack(
      [...Array.from({ length: 4 }, () => ({ toolCalls: [readAccount] })), { text: "done" }],
      [INVALID_ACCOUNT],
    );
    const messages = await s.run();
    assertToolCallPairing(messages);
    expect(s.reads()).toBe(2);
    expect(toolAnswers(messages).slice(2).map(guardOf)).toEqual([
      "ProgressAwareLoopGuardMiddleware",
      "ProgressAwareLoopGuardMiddleware",
    ]);
  });
});

describe("results another guard replaced still count for the validator", () => {
  const cases: Array<[string, unknown, string]> = [
    ["a BigInt (unserialisable, answered by the repair middleware)", { id: 7n } as unknown, "ToolCallRepairMiddleware"],
    [
      "a PNG image (answered by the binary guard)",
      "\u0089PNG\r\n\u001a\n" + "\u0000".repeat(64),
      "BinaryReadGuardMiddleware",
    ],
  ];

  it.each(cases)("%s puts the run in safe mode: the write is refused", async (_name, output, replacedBy) => {
    const s = stack([{ toolCalls: [readAccount] }, { toolCalls: [writeAccount] }, { text: "done" }], [output]);
    const messages = await s.run();
    assertToolCallPairing(messages);
    const [read, write] = toolAnswers(messages);
    expect(read!.response_metadata.harness_kit).toMatchObject({
      guard: "OutputValidatorMiddleware",
      outcome: "invalid_output",
      errorClass: "unusable_result",
    });
    expect(String(read!.content)).toContain(replacedBy);
    expect(s.writes).toEqual([]);
    expect(write!.response_metadata.harness_kit).toMatchObject({
      guard: "OutputValidatorMiddleware",
      outcome: "blocked",
    });
  });
});

describe("the runaway guard reports every run, however it ends", () => {
  // A job stuck at 10%, polled by a tool the progress guard is told to wait on: the identical-call guard stops it first.
  const loop = Array.from({ length: 12 }, () => ({ toolCalls: [{ name: "poll_job", args: { job: "j1" } }] }));
  const polling = { progressGuard: { pollingTools: ["poll_job"] } };
  const endings: Array<[string, ScriptedTurn[], RecommendedGuardsOptions, string | undefined]> = [
    ["a final answer", [{ toolCalls: [readAccount] }, { text: "done" }], {}, undefined],
    ["a stop by the identical-call guard", loop, { ...polling, loopGuard: { stopAt: 3 } }, "LoopGuardMiddleware"],
    [
      "a stop by the progress guard",
      Array.from({ length: 8 }, () => ({ toolCalls: [readAccount] })),
      {},
      "ProgressAwareLoopGuardMiddleware",
    ],
    [
      "a stop by the repair middleware",
      Array.from({ length: 4 }, () => ({ toolCalls: [{ name: "no_such_tool", args: {} }] })),
      {},
      "ToolCallRepairMiddleware",
    ],
  ];

  it.each(endings)("%s", async (_name, turns, options, stoppedBy) => {
    const s = stack(turns, [INVALID_ACCOUNT], options);
    const messages = await s.run();
    assertToolCallPairing(messages);
    const last = messages.at(-1)!;
    expect(guardOf(last)).toBe(stoppedBy);
    expect(s.reports).toHaveLength(1);
    expect(s.reports[0]!.modelCalls).toBe(s.model.callCount);
  });

  it("an exception (exitBehavior throw)", async () => {
    const s = stack(loop, [VALID_ACCOUNT], { ...polling, loopGuard: { stopAt: 3, exitBehavior: "throw" } });
    await expect(s.run()).rejects.toThrow(/LoopGuardMiddleware stopped the run/);
    expect(s.reports).toHaveLength(1);
    expect(s.reports[0]!.toolCalls).toBe(3);
  });
});
