import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import {
  RunawayGuardMiddleware,
  type RunawayGuardOptions,
} from "../../../src/guards/runaway/RunawayGuardMiddleware.js";
import type { Signal } from "../../../src/core/signals.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";

/** The same call every time; the search answers the same every time, so each repeat adds 1× from the third call. */
const flat = (name: string): ScriptedTurn => ({
  toolCalls: [{ name, args: {} }],
  usage: { input_tokens: 1000, output_tokens: 0 },
});
const repeat = <T>(n: number, item: T): T[] => Array.from({ length: n }, () => item);

/** A fresh agent instance (new model, new guard, new tools) on a shared checkpointer. */
function instance(checkpointer: MemorySaver, turns: ScriptedTurn[], options: RunawayGuardOptions = {}) {
  const counter = { runs: 0 };
  const search = tool(async () => (++counter.runs, "no results"), {
    name: "search",
    description: "search",
    schema: z.object({}).passthrough(),
  });
  const signals: Signal[] = [];
  const model = new ScriptedChatModel({ turns });
  const agent = createAgent({
    model,
    tools: [search],
    middleware: [new RunawayGuardMiddleware({ ...options, onSignal: (s) => signals.push(s) })],
    checkpointer,
  });
  return { agent, model, counter, signals };
}

const crash = (): ScriptedTurn => () => {
  throw new Error("process died");
};

describe("RunawayGuardMiddleware on a resumed thread", () => {
  it("continues the count of a run interrupted mid-way, in a new agent instance", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "resume-1" }, recursionLimit: 1000 };
    const first = instance(checkpointer, [...repeat(6, flat("search")), crash()]);
    await expect(first.agent.invoke({ messages: [new HumanMessage("go")] }, config)).rejects.toThrow("process died");
    expect(first.signals.map((s) => s.action)).toEqual(["warn"]);

    const second = instance(checkpointer, repeat(30, flat("search")));
    const result = await second.agent.invoke(null, config);
    const messages = result.messages as BaseMessage[];
    assertToolCallPairing(messages);
    // 6 calls before the crash (4×): the resumed run refuses from its 1st call (the run's 7th, 5×) and stops at its 4th (the 10th, 8×)
    expect(second.counter.runs).toBe(0);
    expect(second.model.callCount).toBe(4);
    expect(second.signals.map((s) => s.action)).toEqual([...repeat(3, "directive"), "stop"]);
    expect(second.signals.at(-1)).toMatchObject({ detail: { runawayFactor: 8, modelCalls: 10 } });
    expect(String(messages.at(-1)?.content)).toMatch(
      /^Run stopped by RunawayGuardMiddleware: the run re-read its context 8\.00× over/,
    );
  });

  it("starts each new run from zero but keeps the thread cap across runs and instances", async () => {
    const checkpointer = new MemorySaver();
    const config = { configurable: { thread_id: "resume-2" }, recursionLimit: 1000 };
    const options = { maxThreadTokens: 6000 };

    const first = instance(
      checkpointer,
      [...repeat(3, flat("search")), { text: "first done", usage: { input_tokens: 1000, output_tokens: 0 } }],
      options,
    );
    await first.agent.invoke({ messages: [new HumanMessage("one")] }, config);
    expect(first.signals).toEqual([]);

    const second = instance(checkpointer, repeat(10, flat("search")), options);
    const two = await second.agent.invoke({ messages: [new HumanMessage("two")] }, config);
    assertToolCallPairing(two.messages);
    expect(second.model.callCount).toBe(2); // 4,000 tokens before + 2 calls of 1,000
    expect(second.counter.runs).toBe(1);
    expect(second.signals).toEqual([
      expect.objectContaining({
        action: "stop",
        detail: expect.objectContaining({ cap: "maxThreadTokens", tokens: 6000 }),
      }),
    ]);

    const third = instance(checkpointer, repeat(10, flat("search")), options);
    const three = await third.agent.invoke({ messages: [new HumanMessage("three")] }, config);
    assertToolCallPairing(three.messages);
    expect(third.model.callCount).toBe(0); // refused before its first model call
    expect(String(three.messages.at(-1)?.content)).toBe(
      "Run stopped by RunawayGuardMiddleware: the thread consumed 6,000 tokens, reaching its cap of 6,000 (maxThreadTokens)",
    );
    expect(three.messages.filter((m: BaseMessage) => ToolMessage.isInstance(m))).toHaveLength(5);
  });
});
