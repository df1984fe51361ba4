import { beforeAll, describe, expect, it } from "vitest";
import { createAgent, type AgentMiddleware } from "langchain";
import { createDeepAgent } from "deepagents";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { recommendedGuards } from "../../src/index.js";
import { ScriptedChatModel } from "../../src/testing/index.js";
import { outcomeAt, smallestLimit } from "../helpers/graphSteps.js";

/**
 * Issue 11: the guards attach through the wrap hooks only, so an agent with the recommended stack
 * takes exactly as many graph steps as the same agent without it, and a working agent does not
 * meet `GraphRecursionError` because of the guards.
 */

type Kind = "createAgent" | "createDeepAgent";
type Setup = "bare" | "stack";

/**
 * Runs an agent of `kind` through `turns` sequential tool turns (a new key each turn, so no
 * guard has reason to act) and a final answer. True when the run got there with every call run.
 */
function runner(kind: Kind, setup: Setup, turns: number) {
  return async (recursionLimit: number | undefined): Promise<boolean> => {
    let ran = 0;
    const lookup = tool(async ({ key }: { key: string }) => (ran++, `value of ${key}`), {
      name: "lookup",
      description: "look a key up",
      schema: z.object({ key: z.string() }),
    });
    const model = new ScriptedChatModel({
      turns: [
        ...Array.from({ length: turns }, (_, i) => ({ toolCalls: [{ name: "lookup", args: { key: `k${i}` } }] })),
        { text: "done" },
      ],
      onExhausted: "throw",
    });
    const guards = recommendedGuards();
    const middleware: AgentMiddleware[] =
      setup === "bare" ? [] : kind === "createAgent" ? guards.agent : guards.deepAgent;
    const agent =
      kind === "createAgent"
        ? createAgent({ model, tools: [lookup], middleware })
        : createDeepAgent({ model, tools: [lookup], middleware });
    const config = recursionLimit === undefined ? {} : { recursionLimit };
    const { messages } = (await agent.invoke({ messages: [new HumanMessage("go")] }, config)) as {
      messages: BaseMessage[];
    };
    const last = messages.at(-1);
    return (
      AIMessage.isInstance(last) &&
      last.content === "done" &&
      ran === turns &&
      messages.filter(ToolMessage.isInstance).length === turns
    );
  };
}

const walks: Record<Kind, number[]> = {
  createAgent: Array.from({ length: 21 }, (_, n) => n),
  // A deep agent's step is slower; these turn counts still pin the base cost and the cost per turn.
  createDeepAgent: [0, 1, 2, 5, 10, 20],
};

describe.each(Object.keys(walks) as Kind[])("%s: the smallest recursionLimit that passes", (kind) => {
  // The bare agent's steps are linear in the turns: found by search at 0 and 1 turns, checked at every N below.
  let bare: { base: number; perTurn: number };
  beforeAll(async () => {
    const base = await smallestLimit(runner(kind, "bare", 0));
    bare = { base, perTurn: (await smallestLimit(runner(kind, "bare", 1))) - base };
  });

  it("is linear for a bare agent: 2 graph steps per tool turn (createAgent 2 + 2N, a deep agent 4 + 2N)", () => {
    expect(bare.perTurn).toBe(2);
    expect(bare.base).toBe(kind === "createAgent" ? 2 : 4);
  });

  it.each(walks[kind])("with %i tool turns is the bare agent's, with the recommended stack", async (turns) => {
    const limit = bare.base + bare.perTurn * turns;
    for (const setup of ["bare", "stack"] as const) {
      const run = runner(kind, setup, turns);
      expect(await outcomeAt(run, limit), `${setup} at ${limit}`).toBe("finished");
      expect(await outcomeAt(run, limit - 1), `${setup} at ${limit - 1}`).toBe("recursion");
    }
  });
});

describe("LangGraph's default recursionLimit (25)", () => {
  it("lets a createAgent with the recommended stack through as many tool turns as a bare one: 11", async () => {
    for (const setup of ["bare", "stack"] as const) {
      expect(await outcomeAt(runner("createAgent", setup, 11)), `${setup}, 11 turns`).toBe("finished");
      expect(await outcomeAt(runner("createAgent", setup, 12)), `${setup}, 12 turns`).toBe("recursion");
    }
  });
});
