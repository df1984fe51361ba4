import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import type { CallDecision, Decision } from "../../src/core/decision.js";
import type { ToolCallView } from "../../src/core/messages.js";
import type { Signal } from "../../src/core/signals.js";
import { BatchGuardMiddleware } from "../../src/hooks/batchGuardMiddleware.js";
import { buildReplaySetup } from "../../src/replay/config.js";
import { replayThread, type StackedGuard } from "../../src/replay/replayThread.js";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { assertToolCallPairing, ScriptedChatModel } from "../../src/testing/index.js";

/** A batch guard that decides by tool name, so a test can set up any disagreement between guards. */
class ScriptedGuard extends BatchGuardMiddleware {
  constructor(
    readonly name: string,
    private readonly byTool: Record<string, Decision["action"]>,
    onSignal: (signal: Signal) => void,
  ) {
    super();
    this.attach({ onSignal }, "end", (_messages, batch) => this.decide(batch));
  }

  decide(batch: readonly ToolCallView[]): CallDecision[] {
    return batch.map((call) => ({ call, decision: this.decisionFor(call.name) }));
  }

  private decisionFor(tool: string): Decision {
    const action = this.byTool[tool] ?? "allow";
    if (action === "allow") return { action };
    if (action === "warn") return { action, code: "guard_failed", reason: `${this.name} warns on ${tool}` };
    return {
      action,
      code: "no_progress",
      reason: `${this.name} ${action} on ${tool}`,
      message: `${this.name} answered ${tool}`,
    };
  }
}

const tools = ["a", "b"].map((name) =>
  tool(async () => `${name} ran`, { name, description: name, schema: z.object({}) }),
);

async function liveAndReplayed(stack: ScriptedGuard[]) {
  const model = new ScriptedChatModel({
    turns: [
      {
        toolCalls: [
          { name: "a", args: {} },
          { name: "b", args: {} },
        ],
      },
      { text: "done" },
    ],
  });
  const agent = createAgent({ model, tools, middleware: stack });
  const { messages } = (await agent.invoke({ messages: [new HumanMessage("go")] })) as { messages: BaseMessage[] };
  assertToolCallPairing(messages);
  const replayStack: StackedGuard[] = stack.map((guard) => ({
    guard: { name: guard.name, evaluate: async (_history, pending) => guard.decide(pending) },
    observeOnly: false,
    exitBehavior: "end",
  }));
  return { messages, replayed: await replayThread(messages.slice(0, 2), replayStack) };
}

describe("replay agrees with the live stack when guards disagree on a batch", () => {
  it("an inner guard's stop on a call an outer guard refused does not end the run, live and replayed", async () => {
    const signals: Signal[] = [];
    const onSignal = (signal: Signal) => signals.push(signal);
    const stack = [
      new ScriptedGuard("Outer", { a: "directive" }, onSignal),
      new ScriptedGuard("Inner", { a: "stop" }, onSignal),
      new ScriptedGuard("Third", { b: "directive" }, onSignal),
    ];
    const { messages, replayed } = await liveAndReplayed(stack);

    // Live: Outer refuses a, which never reaches Inner: Inner's stop cannot ride on it (a did not
    // run), so b goes on to Third, which refuses it, and the run goes on.
    const answers = messages.filter((m) => m.getType() === "tool").map((m) => String(m.content));
    expect(answers).toEqual(["Outer answered a", "Third answered b"]);
    expect(signals.filter((s) => s.guard === "Inner")).toEqual([]);
    expect(String(messages.at(-1)!.content)).toBe("done");

    // Replayed: Inner's stop on a is shadowed by Outer, and stops nothing.
    const acted = replayed.decisions.filter((d) => !d.shadowedBy).map((d) => `${d.guard}:${d.action}:${d.tool}`);
    expect(acted).toEqual(["Outer:directive:a", "Third:directive:b"]);
    expect(replayed.decisions.find((d) => d.guard === "Inner")?.shadowedBy).toBe("Outer");
    expect(replayed.stops).toEqual([]);
  });

  it("a guard none of whose calls reach it stops nothing", async () => {
    const signals: Signal[] = [];
    const onSignal = (signal: Signal) => signals.push(signal);
    const stack = [
      new ScriptedGuard("Outer", { a: "directive", b: "directive" }, onSignal),
      new ScriptedGuard("Inner", { a: "stop" }, onSignal),
    ];
    const { messages, replayed } = await liveAndReplayed(stack);

    expect(String(messages.at(-1)!.content)).toBe("done");
    expect(replayed.decisions.filter((d) => !d.shadowedBy).map((d) => `${d.guard}:${d.action}:${d.tool}`)).toEqual([
      "Outer:directive:a",
      "Outer:directive:b",
    ]);
  });

  it("a guard the replay leaves out still answered its calls live: the replayed guards that would have answered them too never saw them", async () => {
    const signals: Signal[] = [];
    const onSignal = (signal: Signal) => signals.push(signal);
    const outer = new ScriptedGuard("Outer", { a: "directive" }, onSignal);
    const inner = new ScriptedGuard("Inner", { a: "stop", b: "warn" }, onSignal);
    const model = new ScriptedChatModel({
      turns: [
        {
          toolCalls: [
            { name: "a", args: {} },
            { name: "b", args: {} },
          ],
        },
        { text: "done" },
      ],
    });
    const { messages } = (await createAgent({ model, tools, middleware: [outer, inner] }).invoke({
      messages: [new HumanMessage("go")],
    })) as { messages: BaseMessage[] };

    // Replayed without Outer: its recorded answer to a shows Inner was inside it, and b alone reaches Inner.
    const replayed = await replayThread(messages, [
      {
        guard: { name: inner.name, evaluate: async (_history, pending) => inner.decide(pending) },
        observeOnly: false,
        exitBehavior: "end",
      },
    ]);

    const live = signals.filter((s) => s.guard === "Inner").map((s) => `${s.guard}:${s.action}:${s.tool}`);
    expect(live).toEqual(["Inner:warn:b"]);
    expect(replayed.decisions.filter((d) => !d.shadowedBy).map((d) => `${d.guard}:${d.action}:${d.tool}`)).toEqual(
      live,
    );
    expect(replayed.decisions.find((d) => d.tool === "a")?.shadowedBy).toBe("Outer");
  });
});

describe("replay agrees with the live stack on calls an inner guard outside the replay answered", () => {
  it("the runaway guard's warning on a write the validator refused in safe mode, which reached it first", async () => {
    const signals: Signal[] = [];
    const usage = { input_tokens: 1000, output_tokens: 0 };
    const getAccount = tool(async () => "<!DOCTYPE html><html></html>", {
      name: "get_account",
      description: "Reads an account.",
      schema: z.object({ id: z.number() }),
    });
    const updateAccount = tool(async () => "updated", {
      name: "update_account",
      description: "Changes an account.",
      schema: z.object({ id: z.number(), seats: z.number() }),
    });
    const model = new ScriptedChatModel({
      turns: [
        { toolCalls: [{ name: "get_account", args: { id: 1 } }], usage },
        ...Array.from({ length: 4 }, (_, seats) => ({
          toolCalls: [{ name: "update_account", args: { id: 1, seats } }],
          usage,
        })),
        { text: "done", usage },
      ],
    });
    const runaway = { warnAt: 2, blockAt: 50, stopAt: 100 };
    const agent = createAgent({
      model,
      tools: [getAccount, updateAccount],
      middleware: recommendedGuards({
        runaway,
        writeTools: ["update_account"],
        outputSpecs: { get_account: { schema: z.object({ id: z.number() }), onInvalid: "degrade" } },
        onSignal: (signal) => signals.push(signal),
      }).agent,
    });
    const { messages } = (await agent.invoke({ messages: [new HumanMessage("go")] })) as { messages: BaseMessage[] };

    // Every write is refused by the validator, innermost; the runaway guard, outermost, judged each one first.
    const live = signals
      .filter((s) => s.guard === "RunawayGuardMiddleware")
      .map((s) => `${s.action}:${s.tool}:${s.toolCallId}`);
    expect(live).toEqual([expect.stringMatching(/^warn:update_account:/)]);
    const { stack } = buildReplaySetup({ guards: { RunawayGuardMiddleware: runaway } });
    const replayed = await replayThread(messages, stack);
    expect(replayed.decisions.filter((d) => !d.shadowedBy).map((d) => `${d.action}:${d.tool}:${d.toolCallId}`)).toEqual(
      live,
    );
  });
});
