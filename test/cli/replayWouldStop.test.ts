import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import {
  LoopGuardMiddleware,
  ProgressAwareLoopGuardMiddleware,
  recommendedGuards,
  type Signal,
} from "../../src/index.js";
import { wouldBeRefusalsOf } from "../../src/core/marks.js";
import { CHARS_PER_TOKEN } from "../../src/core/tokens.js";
import { estimatedChars } from "../../src/guards/runaway/ledger.js";
import { toolCallIdOf, toolCallsOf } from "../../src/core/messages.js";
import { buildReplaySetup } from "../../src/replay/config.js";
import { replayThread } from "../../src/replay/replayThread.js";
import { runCli } from "../../src/cli/cli.js";
import { ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { captureIo } from "./io.js";
import { tempFiles } from "../helpers/tempFiles.js";

// Replay and observe-only judge a model the way a live guard would have: the recorded (or
// observed) model never read a refusal, and what it did next was repeat. So a call the guard
// would have refused counts, for that guard, as a refusal the model ignored, and the run stops
// where a live guard stops a model that keeps repeating.

const { write } = tempFiles("hk-would-stop-");

const booking = () =>
  tool(async () => "Error: payment amount does not add up", {
    name: "book_reservation",
    description: "book",
    schema: z.object({ flight: z.string() }),
  });

/** A model that books the same flight `times` times (the booking and its repeats), then gives up. */
function repeatingModel(times: number): ScriptedChatModel {
  const turns: ScriptedTurn[] = Array.from({ length: times }, () => ({
    toolCalls: [{ name: "book_reservation", args: { flight: "HAT001" } }],
  }));
  return new ScriptedChatModel({ turns: [...turns, { text: "I could not book it." }] });
}

type Middleware = NonNullable<Parameters<typeof createAgent>[0]["middleware"]>;

/** The unguarded agent's run after `history` (a thread whose last message is the user's request). */
async function runFrom(history: BaseMessage[]): Promise<BaseMessage[]> {
  const agent = createAgent({ model: repeatingModel(7), tools: [booking()] });
  const { messages } = await agent.invoke({ messages: history }, { recursionLimit: 200 });
  return messages;
}

async function run(middleware: Middleware, times = 7): Promise<BaseMessage[]> {
  const agent = createAgent({ model: repeatingModel(times), tools: [booking()], middleware });
  const { messages } = await agent.invoke(
    { messages: [new HumanMessage("book HAT001 for me")] },
    { recursionLimit: 200 },
  );
  return messages;
}

/** Position of a call among all tool calls of a thread, from 0. */
function callIndex(messages: readonly BaseMessage[], toolCallId: string | undefined): number {
  return messages.flatMap((m) => toolCallsOf(m).map((c) => c.id)).indexOf(toolCallId ?? "");
}

/** The call at which a live guard with this stopAt stops a model that keeps repeating the booking. */
async function liveStop(stopAt: number): Promise<number> {
  const signals: Signal[] = [];
  const messages = await run([new ProgressAwareLoopGuardMiddleware({ stopAt, onSignal: (s) => signals.push(s) })], 12);
  const stop = signals.find((s) => s.action === "stop");
  expect(stop, `no live stop at stopAt ${stopAt}`).toBeDefined();
  return callIndex(messages, stop!.toolCallId);
}

describe("replay of an unguarded thread stops where a live guard stops", () => {
  it.each([
    [2, 3],
    [3, 3],
    [6, 6],
  ])(
    "the same failing booking, six repeats: progressGuard stopAt %i stops at call %i, live and in eval",
    async (stopAt, expected) => {
      const live = await liveStop(stopAt);
      expect(live).toBe(expected);

      const unguarded = await run([]);
      expect(unguarded.filter((m) => toolCallsOf(m).length > 0)).toHaveLength(7);
      const thread = write(
        `booking-${stopAt}.json`,
        unguarded.map((m) => m.toDict()),
      );
      const config = write(`stack-${stopAt}.json`, { guards: { ProgressAwareLoopGuardMiddleware: { stopAt } } });

      const io = captureIo();
      expect(await runCli(["eval", thread, "--config", config, "--jsonl"], io)).toBe(0);
      const decisions = io.stdoutLines().map((line) => JSON.parse(line) as { action: string; toolCallId: string });
      // a directive for the first useless repeat, then the stop, and nothing after it: the run ended there
      const stops = decisions.filter((d) => d.action === "stop");
      expect(stops).toHaveLength(1);
      expect(decisions.at(-1)).toEqual(stops[0]);
      expect(callIndex(unguarded, stops[0]!.toolCallId)).toBe(live);
      expect(io.stderr()).toContain(`ProgressAwareLoopGuardMiddleware stops the run at call ${live} (book_reservation`);
    },
  );

  it("eval names the call where the run would have stopped and what the run spent after it", async () => {
    const unguarded = await run([]);
    const thread = write("booking.json", { id: "booking", messages: unguarded.map((m) => m.toDict()) });
    const setup = buildReplaySetup();
    const replay = await replayThread(unguarded, setup.stack);
    // stopAt 3 (the default): the third booking is refused, the fourth (call 3) stops the run
    expect(replay.stops).toHaveLength(1);
    const [stop] = replay.stops;
    expect(stop).toMatchObject({
      guard: "ProgressAwareLoopGuardMiddleware",
      tool: "book_reservation",
      callIndex: 3,
      modelCallsAfter: 4,
      toolCallsAfter: 3,
    });
    expect(stop!.tokensAfter).toBeGreaterThan(0);
    // every decision after the stop is one the run never reached
    expect(
      replay.decisions.filter((d) => d.callIndex > 3).every((d) => d.afterStop === "ProgressAwareLoopGuardMiddleware"),
    ).toBe(true);

    const io = captureIo();
    expect(await runCli(["eval", thread], io)).toBe(0);
    const tokens = stop!.tokensAfter.toLocaleString("en-US");
    expect(io.stderr()).toContain(
      `stop: thread booking: ProgressAwareLoopGuardMiddleware stops the run at call 3 (book_reservation, message ${stop!.messageIndex}); after it the run made 4 model calls and 3 tool calls, `,
    );
    expect(io.stderr()).toContain(`${tokens} tokens`);
    expect(io.stdout()).toMatch(
      new RegExp(
        `\\nstopped\\s+1 thread \\(100\\.0%\\); after the stops their runs made 4 model calls and 3 tool calls, ${tokens} tokens`,
      ),
    );
    expect(io.stdout()).toMatch(/\nProgressAwareLoopGuardMiddleware\s+0\s+1\s+1\s/);

    const inspected = captureIo();
    expect(await runCli(["inspect", thread], inspected)).toBe(0);
    expect(inspected.stdout()).toContain("(after ProgressAwareLoopGuardMiddleware stopped the run)");
    expect(inspected.stdout()).toContain("stops the run at call 3");
  });

  it("every stopped run of a long thread counts what it spent after its stop from its own context", async () => {
    // Three runs of the same failing booking, one after another in one thread: each stops, and
    // what it spent after its stop is estimated from the whole thread before it.
    const messages: BaseMessage[] = [];
    for (let runIndex = 0; runIndex < 3; runIndex++) {
      messages.push(new HumanMessage(`book HAT00${runIndex} for me`));
      const run = await runFrom(messages);
      messages.push(...run.slice(messages.length));
    }
    const replay = await replayThread(messages, buildReplaySetup().stack);
    expect(replay.stops).toHaveLength(3);
    const runStarts = messages.flatMap((m, i) => (HumanMessage.isInstance(m) ? [i] : []));
    expect(replay.stops.map((stop) => runStarts.filter((start) => start < stop.messageIndex).length)).toEqual([
      1, 2, 3,
    ]);
    for (const stop of replay.stops) {
      let context = 0;
      for (let i = 0; i <= stop.messageIndex; i++) context += estimatedChars(messages[i]);
      let expected = 0;
      for (let i = stop.messageIndex + 1; i < messages.length && !HumanMessage.isInstance(messages[i]); i++) {
        const chars = estimatedChars(messages[i]);
        if (AIMessage.isInstance(messages[i])) expected += Math.round((context + chars) / CHARS_PER_TOKEN);
        context += chars;
      }
      expect(stop.tokenSource).toBe("estimate");
      expect(stop.modelCallsAfter).toBeGreaterThan(0);
      expect(stop.tokensAfter).toBe(expected);
    }
  });

  it("a thread that ends before the call a live guard would stop at shows no stop", async () => {
    const shorter = await run([], 6);
    const thread = write(
      "six.json",
      shorter.map((m) => m.toDict()),
    );
    const io = captureIo();
    expect(
      await runCli(
        [
          "eval",
          thread,
          "--config",
          write("six-stop.json", { guards: { ProgressAwareLoopGuardMiddleware: { stopAt: 6 } } }),
          "--jsonl",
        ],
        io,
      ),
    ).toBe(0);
    // live, stopAt 6 stops at the seventh booking, which this model never made: four directives
    expect(io.stdoutLines().map((line) => (JSON.parse(line) as { action: string }).action)).toEqual([
      "directive",
      "directive",
      "directive",
      "directive",
    ]);
  });
});

describe("an observe-only guard reports the stop the enforcing guard makes", () => {
  it.each([2, 3, 6])(
    "stopAt %i: a stop signal with detail.observeOnly at the enforcing guard's stop call",
    async (stopAt) => {
      const live = await liveStop(stopAt);
      const signals: Signal[] = [];
      const messages = await run(
        [new ProgressAwareLoopGuardMiddleware({ stopAt, observeOnly: true, onSignal: (s) => signals.push(s) })],
        12,
      );
      // every call ran: the guard only watched
      expect(messages.filter((m) => m.getType() === "tool")).toHaveLength(12);
      const stop = signals.find((s) => s.action === "stop");
      expect(stop?.detail?.observeOnly).toBe(true);
      expect(callIndex(messages, stop!.toolCallId)).toBe(live);
      // its refusals are written on the answers of the calls it let run, so the decision reads from the history
      const refused = messages.filter((m) =>
        wouldBeRefusalsOf(m).some((r) => r.guard === "ProgressAwareLoopGuardMiddleware"),
      );
      expect(refused.map((m) => callIndex(messages, toolCallIdOf(m)))[0]).toBe(2);
      // and replaying the observed thread gives the same stop
      const config = buildReplaySetup();
      const replayed = await replayThread(
        messages,
        config.stack.map((g) =>
          g.guard.name === "ProgressAwareLoopGuardMiddleware"
            ? { ...g, guard: new ProgressAwareLoopGuardMiddleware({ stopAt }) }
            : g,
        ),
      );
      expect(replayed.stops.map((s) => [s.guard, s.callIndex])).toEqual([["ProgressAwareLoopGuardMiddleware", live]]);
    },
  );

  it("replay with other settings judges an observed thread as it judges the unguarded one: the recorded would-be refusals give way to its own", async () => {
    const observed = await run([new ProgressAwareLoopGuardMiddleware({ observeOnly: true })], 12);
    const unguarded = await run([], 12);
    const patient = [
      {
        guard: new ProgressAwareLoopGuardMiddleware({ pollingTools: ["book_reservation"], pollPatience: 5 }),
        observeOnly: false,
        exitBehavior: "end" as const,
      },
    ];
    const judged = async (messages: BaseMessage[]) => {
      const replay = await replayThread(messages, patient);
      return {
        stops: replay.stops.map((s) => s.callIndex),
        decisions: replay.decisions.map(({ action, callIndex, detail }) => ({ action, callIndex, detail })),
      };
    };
    const fromObserved = await judged(observed);
    expect(fromObserved).toEqual(await judged(unguarded));
    expect(fromObserved.stops).toEqual([5]);
  });

  it("recommendedGuards({ observeOnly: true }) signals the stop the enforcing stack makes, at the same call", async () => {
    const enforced: Signal[] = [];
    const enforcedRun = await run(recommendedGuards({ onSignal: (s) => enforced.push(s) }).agent, 12);
    const enforcedStop = enforced.find((s) => s.action === "stop");
    expect(enforcedStop?.guard).toBe("ProgressAwareLoopGuardMiddleware");

    const observed: Signal[] = [];
    const observedRun = await run(
      recommendedGuards({ observeOnly: true, onSignal: (s) => observed.push(s) }).agent,
      12,
    );
    const observedStop = observed.find((s) => s.action === "stop");
    expect(observedStop).toMatchObject({ guard: "ProgressAwareLoopGuardMiddleware", detail: { observeOnly: true } });
    expect(callIndex(observedRun, observedStop!.toolCallId)).toBe(callIndex(enforcedRun, enforcedStop!.toolCallId));
  });
});

describe("the identical-call guard, observe-only, counts as it would enforcing", () => {
  it("a repeat it would have refused is no call of the streak, as a refused one is live", async () => {
    const clock = tool(async () => "12:00", { name: "clock", description: "time", schema: z.object({}) });
    const signalsOf = async (observeOnly: boolean) => {
      const signals: Signal[] = [];
      const turns: ScriptedTurn[] = Array.from({ length: 8 }, () => ({ toolCalls: [{ name: "clock", args: {} }] }));
      const guard = new LoopGuardMiddleware({
        stopAt: 4,
        exitBehavior: "directive",
        observeOnly,
        onSignal: (s) => signals.push(s),
      });
      const agent = createAgent({
        model: new ScriptedChatModel({ turns: [...turns, { text: "done" }] }),
        tools: [clock],
        middleware: [guard],
      });
      await agent.invoke({ messages: [new HumanMessage("what time is it")] }, { recursionLimit: 200 });
      return signals.map((s) => `${s.action}:${String(s.detail?.count)}`);
    };
    const enforced = await signalsOf(false);
    expect(enforced).toEqual(["warn:3", "stop:4", "stop:4", "stop:4", "stop:4", "stop:4"]);
    expect(await signalsOf(true)).toEqual(enforced);
  });
});
