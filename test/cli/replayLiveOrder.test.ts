import { describe, expect, it } from "vitest";
import { createAgent, type AgentMiddleware } from "langchain";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import {
  LoopGuardMiddleware,
  ProgressAwareLoopGuardMiddleware,
  ToolCallRepairMiddleware,
  type Signal,
} from "../../src/index.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { buildReplaySetup, type ReplayConfig } from "../../src/replay/config.js";
import { replayThread, type ReplayGuard, type ReplayResult } from "../../src/replay/replayThread.js";
import { guardToolMessage } from "../../src/core/answers.js";
import { ALLOW, type Decision } from "../../src/core/decision.js";
import type { SignalCode } from "../../src/core/signalCodes.js";
import { runCli } from "../../src/cli/cli.js";
import { tempFiles } from "../helpers/tempFiles.js";
import { captureIo } from "./io.js";

// A live run of a real createAgent graph, checkpointed by MemorySaver, and the replay of the
// checkpoint's messages: the decisions the stack acted on must be the live signals, in order.

const booking: ScriptedTurn = { toolCalls: [{ name: "book_reservation", args: { flight: "HAT001", amount: 299 } }] };
const think = (thought: string): ScriptedTurn => ({ toolCalls: [{ name: "think", args: { thought } }] });
const search = (q: string) => ({ name: "search", args: { q } });

/** A booking that fails the same way, retried with a think call between, after a parallel batch with a duplicate. */
const TURNS: ScriptedTurn[] = [
  { toolCalls: [search("flights"), search("hotels"), search("flights")] },
  ...[1, 2, 3, 4, 5].flatMap((i) => [booking, think(`retry ${i}`)]),
  { text: "I could not book it." },
];

function tools() {
  return [
    tool(async () => "Error: payment amount does not add up, total price is 375", {
      name: "book_reservation",
      description: "book",
      schema: z.object({ flight: z.string(), amount: z.number() }),
    }),
    tool(async () => "", { name: "think", description: "think", schema: z.object({ thought: z.string() }) }),
    tool(async ({ q }: { q: string }) => `results for ${q}`, {
      name: "search",
      description: "search",
      schema: z.object({ q: z.string() }),
    }),
  ];
}

/** Runs the stack live and returns its signals and the checkpoint's messages. */
async function runLive(
  middleware: (onSignal: (s: Signal) => void) => AgentMiddleware[],
  turns = TURNS,
): Promise<{ signals: Signal[]; messages: BaseMessage[] }> {
  const signals: Signal[] = [];
  const agent = createAgent({
    model: new ScriptedChatModel({ turns }),
    tools: tools(),
    middleware: middleware((s) => signals.push(s)),
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "t" } };
  await agent.invoke({ messages: [new HumanMessage("Book HAT001 for me.")] }, config);
  const messages = (await agent.graph.getState(config)).values.messages as BaseMessage[];
  assertToolCallPairing(messages);
  return { signals, messages };
}

/** Guard, action and call of each decision the stack acted on (what `eval --jsonl` prints), in order. */
const acted = (replay: ReplayResult) =>
  replay.decisions.filter((d) => !d.shadowedBy).map(({ guard, action, toolCallId }) => ({ guard, action, toolCallId }));
const signalled = (signals: Signal[]) =>
  signals.map(({ guard, action, toolCallId }) => ({ guard, action, toolCallId }));

const { write } = tempFiles("hk-replay-order-");

const replayWith = (messages: BaseMessage[], guards: ReplayConfig["guards"]) =>
  replayThread(messages, buildReplaySetup({ guards }).stack);

describe("replaying a checkpointed thread gives the decisions made live, in the live stack's order", () => {
  // The identical-call guard warns from the second booking, before the progress guard refuses one.
  const loop = (onSignal: (s: Signal) => void) => new LoopGuardMiddleware({ warnAt: 2, onSignal });
  const progress = (onSignal: (s: Signal) => void) => new ProgressAwareLoopGuardMiddleware({ onSignal });
  const options: ReplayConfig["guards"] = { LoopGuardMiddleware: { warnAt: 2 }, ProgressAwareLoopGuardMiddleware: {} };

  it.each([
    ["the identical-call guard outside the progress guard", [loop, progress]],
    ["the progress guard outside the identical-call guard", [progress, loop]],
  ])("%s, replayed in that order", async (_name, guards) => {
    const { signals, messages } = await runLive((onSignal) => guards.map((guard) => guard(onSignal)));
    // Both guards must have acted, or the order would prove nothing.
    expect(new Set(signals.map((s) => s.guard)).size).toBe(2);
    const order = guards.map((guard) => guard(() => {}).name);
    const replay = await replayWith(
      messages,
      Object.fromEntries(order.map((name) => [name, options[name as keyof typeof options]])),
    );

    expect(acted(replay)).toEqual(signalled(signals));
    expect(replay.order).toEqual(order);
    expect(replay.unreproduced).toEqual([]);
  });

  it("reads the order from the thread where a recorded answer shows it, and says which call showed it", async () => {
    const { signals, messages } = await runLive((onSignal) => [
      new LoopGuardMiddleware({ warnAt: 2, stopAt: 3, onSignal }),
      new ProgressAwareLoopGuardMiddleware({ onSignal }),
    ]);
    const stop = signals.find((s) => s.action === "stop")!;
    expect(stop.guard).toBe("LoopGuardMiddleware");

    // Given in the other order (recommendedGuards'), as `eval` without --config assumes.
    const replay = await replayWith(messages, {
      ProgressAwareLoopGuardMiddleware: {},
      LoopGuardMiddleware: { warnAt: 2, stopAt: 3 },
    });

    expect(replay.order).toEqual(["LoopGuardMiddleware", "ProgressAwareLoopGuardMiddleware"]);
    expect(replay.orderEvidence).toEqual([
      { outer: "LoopGuardMiddleware", inner: "ProgressAwareLoopGuardMiddleware", toolCallId: stop.toolCallId },
    ]);
    expect(acted(replay)).toEqual(signalled(signals));
  });

  it("judges each guard's batch again in the live order: a sibling the outer guard refused is no earlier call for the inner one", async () => {
    const [first, second] = [
      { id: "c1", name: "search", args: { q: "flights" } },
      { id: "c2", name: "search", args: { q: "flights" } },
    ];
    const directive = (code: SignalCode): Decision => ({ action: "directive", code, reason: code, message: code });
    // Each guard refuses the first call; the inner one refuses the second only beside the first.
    const outer: ReplayGuard = {
      name: "Outer",
      evaluate: async (_, pending) =>
        pending.map((call) => ({ call, decision: call.id === "c1" ? directive("identical_calls") : ALLOW })),
    };
    const inner: ReplayGuard = {
      name: "Inner",
      evaluate: async (_, pending) =>
        pending.map((call) => ({
          call,
          decision: call.id === "c1" || pending.some((p) => p.id === "c1") ? directive("duplicate_in_batch") : ALLOW,
        })),
    };
    // Live, the outer guard refused the first call and the second ran.
    const messages = [
      new HumanMessage("find flights"),
      new AIMessage({ content: "", tool_calls: [first, second] }),
      guardToolMessage(first, "Outer", "directive", "identical_calls"),
      new ToolMessage({ content: "results for flights", tool_call_id: "c2", name: "search" }),
      new AIMessage("done"),
    ];
    const mode = { observeOnly: false, exitBehavior: "end" as const };
    // Given inner first: the outer guard's recorded answer moves it out.
    const replay = await replayThread(messages, [
      { guard: inner, ...mode },
      { guard: outer, ...mode },
    ]);

    expect(replay.order).toEqual(["Outer", "Inner"]);
    expect(acted(replay)).toEqual([{ guard: "Outer", action: "directive", toolCallId: "c1" }]);
    expect(replay.decisions.find((d) => d.guard === "Inner" && d.toolCallId === "c1")?.shadowedBy).toBe("Outer");
    expect(replay.unreproduced).toEqual([]);
  });

  it("eval and inspect say which order they replayed, and where it came from", async () => {
    const { messages } = await runLive((onSignal) => [
      new LoopGuardMiddleware({ warnAt: 2, stopAt: 3, onSignal }),
      new ProgressAwareLoopGuardMiddleware({ onSignal }),
    ]);
    const thread = write("thread.json", { id: "booking", messages });
    const config = write("stack.json", {
      guards: { LoopGuardMiddleware: { warnAt: 2, stopAt: 3 }, ProgressAwareLoopGuardMiddleware: {} },
    });

    const given = captureIo();
    expect(await runCli(["eval", thread, "--config", config, "--jsonl"], given)).toBe(0);
    expect(given.stderr()).toContain(
      `order       LoopGuardMiddleware > ProgressAwareLoopGuardMiddleware  (outermost first; the order of ${config})`,
    );
    expect(given.stderr()).not.toMatch(/note|warning/);

    const assumed = captureIo();
    expect(await runCli(["eval", thread], assumed)).toBe(0);
    expect(assumed.stdout()).toContain(
      "order       RunawayGuardMiddleware > ProgressAwareLoopGuardMiddleware > LoopGuardMiddleware  (outermost first; recommendedGuards' order, no --config given)",
    );
    expect(assumed.stdout()).toContain("1 thread replayed in another order, the one their recorded answers show");
    expect(assumed.stderr()).toContain(
      "note: thread booking replayed as RunawayGuardMiddleware > LoopGuardMiddleware > ProgressAwareLoopGuardMiddleware, the order its recorded answers show",
    );
    // The default LoopGuard options do not stop where the live ones did: the replay says so.
    expect(assumed.stderr()).toMatch(
      /warning: thread booking: 1 recorded answer not reproduced.*\n.*answered live by LoopGuardMiddleware; in the replay by ProgressAwareLoopGuardMiddleware/,
    );

    const inspected = captureIo();
    expect(await runCli(["inspect", thread], inspected)).toBe(0);
    expect(inspected.stdout()).toContain(
      "guards, outermost first: RunawayGuardMiddleware > LoopGuardMiddleware > ProgressAwareLoopGuardMiddleware (read from the thread's recorded answers, else recommendedGuards' order, no --config given)",
    );
  });

  it("names the recorded answers a stack with other options does not reproduce", async () => {
    const { signals, messages } = await runLive((onSignal) => [
      new LoopGuardMiddleware({ warnAt: 2, stopAt: 3, onSignal }),
      new ProgressAwareLoopGuardMiddleware({ onSignal }),
    ]);
    const stop = signals.find((s) => s.action === "stop")!;

    const replay = await replayWith(messages, { LoopGuardMiddleware: {}, ProgressAwareLoopGuardMiddleware: {} });

    expect(replay.unreproduced).toEqual([
      {
        toolCallId: stop.toolCallId,
        tool: "book_reservation",
        messageIndex: expect.any(Number),
        live: "LoopGuardMiddleware",
        replayed: "ProgressAwareLoopGuardMiddleware",
      },
    ]);
  });

  it("leaves the calls the repair middleware answers to it, live and replayed", async () => {
    // Two identical calls of a tool that does not exist, in one batch: the progress guard would
    // refuse the second as a duplicate, but live the repair middleware answers both.
    const unknown = { name: "readFile", args: { path: "a.txt" } };
    const turns: ScriptedTurn[] = [{ toolCalls: [unknown, unknown] }, booking, booking, booking, { text: "done" }];
    const { signals, messages } = await runLive(
      (onSignal) => [
        new ProgressAwareLoopGuardMiddleware({ onSignal }),
        new LoopGuardMiddleware({ onSignal }),
        new ToolCallRepairMiddleware({ onSignal }),
      ],
      turns,
    );
    const judgedByLoopGuards = (decisions: Array<{ guard: string }>) =>
      decisions.filter((d) => d.guard !== "ToolCallRepairMiddleware");

    const replay = await replayWith(messages, { ProgressAwareLoopGuardMiddleware: {}, LoopGuardMiddleware: {} });

    expect(signals.some((s) => s.guard === "ToolCallRepairMiddleware")).toBe(true);
    expect(acted(replay)).toEqual(judgedByLoopGuards(signalled(signals)));
    expect(replay.decisions.map((d) => d.tool)).not.toContain("readFile");
  });
});
