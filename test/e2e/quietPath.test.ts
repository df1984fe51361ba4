import { describe, expect, it } from "vitest";
import { createAgent, type AgentMiddleware } from "langchain";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import type { Signal } from "../../src/core/signals.js";
import { ComposedGuards } from "../../src/stack/composeGuards.js";
import {
  BinaryReadGuardMiddleware,
  ContextOverflowGuardMiddleware,
  OutputValidatorMiddleware,
} from "../../src/index.js";
import { recommendedGuards, type RecommendedGuardsOptions } from "../../src/stack/recommendedGuards.js";
import { loadHasher } from "../../src/observe/hash.js";
import { ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";

const lookup = tool(async ({ key }: { key: string }) => `value of ${key}`, {
  name: "lookup",
  description: "look a key up",
  schema: z.object({ key: z.string() }),
});

const turns = (keys: string[], reusedIds = false): ScriptedTurn[] => [
  ...keys.map((key, i) =>
    reusedIds
      ? // Some OpenAI-compatible servers number calls per turn: \`call_0\` comes back every turn.
        new AIMessage({ id: `m${i}`, content: "", tool_calls: [{ id: "call_0", name: "lookup", args: { key } }] })
      : { toolCalls: [{ name: "lookup", args: { key } }] },
  ),
  { text: "done" },
];

/** One run of `keys` through the stack `options` builds, with the quiet path or without. */
async function run(keys: string[], options: RecommendedGuardsOptions = {}, quietPath = true, reusedIds = false) {
  await loadHasher();
  const signals: Signal[] = [];
  const reports: unknown[] = [];
  const [composed, carry] = recommendedGuards({
    ...options,
    runaway: { ...options.runaway, onReport: (r) => reports.push(r) },
    onSignal: (s) => signals.push(s),
  }).agent as [ComposedGuards, AgentMiddleware];
  const stack = quietPath ? composed : new ComposedGuards(composed.name, composed.members, { quietPath: false });
  const agent = createAgent({
    model: new ScriptedChatModel({ turns: turns(keys, reusedIds) }),
    tools: [lookup],
    middleware: [stack as unknown as AgentMiddleware, carry],
  });
  const { messages } = (await agent.invoke({ messages: [new HumanMessage("go")] })) as { messages: BaseMessage[] };
  // Ids differ between two runs only by the script's random prefix.
  const transcript = messages.map((m) =>
    JSON.stringify([m.getType(), m.content, m.response_metadata]).replace(/scripted-[0-9a-f]{8}/g, "scripted"),
  );
  return {
    quiet: stack.quietSteps,
    signals: signals.map((s) => `${s.guard} ${s.action} ${s.code}`),
    reports: reports.map((r) => JSON.stringify(r).replace(/scripted-[0-9a-f]{8}/g, "scripted")),
    transcript,
  };
}

describe("the quiet path", () => {
  it("takes every step of a run of new calls, the answer that ends it included, whose report is the same", async () => {
    const quiet = await run(["a", "b", "c", "d"]);
    expect(quiet.quiet).toEqual({ tool: 4, model: 5 });
    const full = await run(["a", "b", "c", "d"], {}, false);
    expect(full.quiet).toEqual({ tool: 0, model: 0 });
    expect(quiet.transcript).toEqual(full.transcript);
    expect(quiet.reports).toHaveLength(1);
    expect(quiet.reports).toEqual(full.reports);
  });

  it("leaves a repeat to the guards, which warn as they do without it", async () => {
    const keys = ["a", "a", "a", "b"];
    const options = { loopGuard: { warnAt: 2, stopAt: 9 } };
    const quiet = await run(keys, options);
    const full = await run(keys, options, false);
    expect(quiet.signals).toContain("LoopGuardMiddleware warn identical_calls");
    expect(quiet.signals).toEqual(full.signals);
    expect(quiet.transcript).toEqual(full.transcript);
    // The first call and the model turns before the repeats are quiet; the repeats are not.
    expect(quiet.quiet.tool).toBe(1);
  });

  it("judges as the full stack does when the model reuses its tool-call ids every turn", async () => {
    const keys = ["a", "b", "a", "a", "c", "a"];
    const options = { loopGuard: { warnAt: 2, stopAt: 9 } };
    const quiet = await run(keys, options, true, true);
    const full = await run(keys, options, false, true);
    expect(quiet.quiet.tool).toBeGreaterThan(0);
    expect(quiet.signals.length).toBeGreaterThan(0);
    expect(quiet.signals).toEqual(full.signals);
    expect(quiet.transcript).toEqual(full.transcript);
    expect(quiet.reports).toEqual(full.reports);
  });

  it("is taken under a token cap while the ledger says it is far, and the cap stops the run where it does without", async () => {
    const keys = Array.from({ length: 10 }, (_, i) => `key-${i}`);
    const far = await run(keys, { runaway: { maxRunTokens: 1_000_000 } });
    expect(far.quiet.tool).toBe(10);
    const options = { runaway: { maxRunTokens: 150 } };
    const quiet = await run(keys, options);
    const full = await run(keys, options, false);
    expect(quiet.signals).toContain("RunawayGuardMiddleware stop run_token_cap");
    expect(quiet.transcript).toEqual(full.transcript);
  });

  it("serves a few guards composed alone, which read nothing of the thread, and leaves what they act on to them", async () => {
    const files = tool(
      async ({ key }: { key: string }) => (key === "logo" ? "\u0089PNG\r\n\u001a\n\u0000\u0000" : `text of ${key}`),
      {
        name: "lookup",
        description: "look a key up",
        schema: z.object({ key: z.string() }),
      },
    );
    const serve = async (quietPath: boolean) => {
      const signals: Signal[] = [];
      const onSignal = (s: Signal) => signals.push(s);
      const members = [
        new OutputValidatorMiddleware({ onSignal }),
        new BinaryReadGuardMiddleware({ onSignal }),
        new ContextOverflowGuardMiddleware({ onSignal }),
      ] as unknown as AgentMiddleware[];
      const stack = new ComposedGuards("some", members, { quietPath });
      const agent = createAgent({
        model: new ScriptedChatModel({ turns: turns(["a", "logo", "b"]) }),
        tools: [files],
        middleware: [stack as unknown as AgentMiddleware],
      });
      const { messages } = (await agent.invoke({ messages: [new HumanMessage("go")] })) as { messages: BaseMessage[] };
      const transcript = messages.map((m) =>
        JSON.stringify([m.getType(), m.content, m.response_metadata]).replace(/scripted-[0-9a-f]{8}/g, "scripted"),
      );
      return { quiet: stack.quietSteps, signals: signals.map((s) => `${s.guard} ${s.action} ${s.code}`), transcript };
    };
    const [quiet, full] = [await serve(true), await serve(false)];
    // Not the binary result, nor the model call that reads it.
    expect(quiet.quiet).toEqual({ tool: 2, model: 3 });
    expect(quiet.signals).toEqual(["BinaryReadGuardMiddleware directive binary_result"]);
    expect(quiet.signals).toEqual(full.signals);
    expect(quiet.transcript).toEqual(full.transcript);
  });

  it("is never taken beside a guard that cannot vouch for a step, or one that never lets a step be quiet", async () => {
    const policy = await run(["a", "b"], { policy: { rules: [] } });
    expect(policy.quiet).toEqual({ tool: 0, model: 0 });
    const strict = await run(["a", "b"], { loopGuard: { warnAt: 1, stopAt: 9 } });
    expect(strict.quiet).toEqual({ tool: 0, model: 0 });
  });
});
