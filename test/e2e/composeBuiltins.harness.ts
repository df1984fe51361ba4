import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent, type AgentMiddleware } from "langchain";
import { expect, vi } from "vitest";
import { z } from "zod";
import { resetCompositionWarnings } from "../../src/core/composition.js";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";

/**
 * A LangChain built-in alone and beside `recommendedGuards().agent`, listed before and after the
 * guards, through a real createAgent graph: what a user observes is compared run against run
 * (docs/composing.md).
 */

/** A tool's failure that is not an Error LangChain knows. */
export class FlakyError extends Error {
  override name = "FlakyError";
}

/** A provider's rate limit, as a model client throws it. */
export class RateLimitError extends Error {
  override name = "RateLimitError";
}

/** A model turn that fails the way a provider does. */
export const rateLimited: ScriptedTurn = () => {
  throw new RateLimitError("rate limited");
};

export type Step = { say: string } | { resume: unknown };

/** What a user sees of one run. */
export interface Observation {
  /** Each execution of a tool, in order. */
  ran: string[];
  /** Per model call, every message the model read (type, text, calls). */
  modelRead: string[][];
  /** Per model call, the tools it was offered, but the guards' own (`read_stored_result`, offered once a summary may name a stored result). */
  offered: string[][];
  /** Per step: the interrupts it ended on, or how it threw. */
  steps: string[];
  /** The thread's last message, when the last step did not throw. */
  last: string;
}

export interface Run {
  observation: Observation;
  warnings: string[];
}

/** The models a built-in may need besides the agent's: they play the same script in every run. */
export interface Models {
  side: ScriptedChatModel;
}

export interface Scenario {
  /** A fresh built-in per run. */
  builtIn: (models: Models) => AgentMiddleware;
  turns: ScriptedTurn[];
  /** Turns of the side model (a summariser, a fallback, a selector, an emulator). */
  sideTurns?: ScriptedTurn[];
  /** How many times the tool `flaky` fails before it succeeds (default: never succeeds). */
  flakyFailures?: number;
  steps?: Step[];
}

export type Order = "alone" | "before the guards" | "after the guards";

export const ORDERS: readonly Order[] = ["alone", "before the guards", "after the guards"];

function toolsFor(scenario: Scenario, ran: string[]) {
  let failures = 0;
  const record = (name: string, args: unknown) => ran.push(`${name} ${JSON.stringify(args)}`);
  return [
    tool(
      async (args: { query: string }) => {
        record("search_docs", args);
        return `results for ${args.query}: refunds within 30 days, write to help@example.com`;
      },
      { name: "search_docs", description: "Search the docs.", schema: z.object({ query: z.string() }) },
    ),
    tool(
      async (args: { to: string; body: string }) => {
        record("send_email", args);
        return `sent to ${args.to}`;
      },
      { name: "send_email", description: "Send an email.", schema: z.object({ to: z.string(), body: z.string() }) },
    ),
    tool(
      async (args: { id: number }) => {
        record("flaky", args);
        if (failures++ < (scenario.flakyFailures ?? Infinity)) throw new FlakyError("upstream timed out");
        return `record ${args.id}`;
      },
      { name: "flaky", description: "Read a record from a flaky service.", schema: z.object({ id: z.number() }) },
    ),
  ];
}

const GUARD_TOOLS = new Set(
  recommendedGuards()
    .agent.flatMap((m) => (m.tools ?? []) as Array<{ name: string }>)
    .map((t) => t.name),
);

function middlewareFor(order: Order, builtIn: AgentMiddleware): AgentMiddleware[] {
  if (order === "alone") return [builtIn];
  const guards = recommendedGuards().agent;
  return order === "before the guards" ? [builtIn, ...guards] : [...guards, builtIn];
}

/** Runs the scenario with the built-in in `order`. */
export async function runScenario(scenario: Scenario, order: Order): Promise<Run> {
  resetCompositionWarnings();
  const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
  try {
    const ran: string[] = [];
    const model = new ScriptedChatModel({ turns: scenario.turns });
    const side = new ScriptedChatModel({ turns: scenario.sideTurns ?? [] });
    const agent = createAgent({
      model,
      tools: toolsFor(scenario, ran),
      middleware: middlewareFor(order, scenario.builtIn({ side })),
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "t" } };
    const steps: string[] = [];
    for (const step of scenario.steps ?? [{ say: "go" }]) {
      const input = "say" in step ? { messages: [new HumanMessage(step.say)] } : new Command({ resume: step.resume });
      try {
        const result = (await agent.invoke(input, config)) as { __interrupt__?: unknown[] };
        steps.push(`interrupts: ${result.__interrupt__?.length ?? 0}`);
      } catch (error) {
        steps.push(`threw ${rootCause(error)}`);
      }
    }
    const messages = ((await agent.graph.getState(config)).values as { messages?: BaseMessage[] }).messages ?? [];
    const observation: Observation = {
      ran,
      modelRead: model.seen.map((read) => read.map(describe)),
      offered: model.toolBindings.map((names) => names.filter((name) => !GUARD_TOOLS.has(name))),
      steps,
      last: messages.length ? describe(messages[messages.length - 1]!) : "",
    };
    return {
      observation,
      warnings: warn.mock.calls
        .map((args) => args.map(String).join(" "))
        .filter((text) => text.startsWith("harness-kit")),
    };
  } finally {
    warn.mockRestore();
  }
}

/** The error at the bottom of LangChain's wrappers, as `Name: message`. */
export function rootCause(error: unknown): string {
  let inner = error;
  for (let depth = 0; depth < 32 && inner instanceof Error && inner.cause instanceof Error; depth++)
    inner = inner.cause;
  return inner instanceof Error ? `${inner.name}: ${inner.message}` : String(inner);
}

function describe(message: BaseMessage): string {
  const calls =
    AIMessage.isInstance(message) && message.tool_calls?.length
      ? ` -> ${message.tool_calls.map((c) => `${c.name}(${JSON.stringify(c.args)})`).join(", ")}`
      : "";
  return `${message.getType()}: ${typeof message.content === "string" ? message.content : JSON.stringify(message.content)}${calls}`;
}

/**
 * The built-in listed `order` against the built-in alone: the same observation, or (where the
 * guards cannot give it its meaning) a different one and a warning that names the built-in and
 * says where to list it.
 */
export async function expectComposes(
  scenario: Scenario,
  order: Exclude<Order, "alone">,
  expected: "same" | { warns: string },
): Promise<Run> {
  const alone = await runScenario(scenario, "alone");
  const composed = await runScenario(scenario, order);
  if (expected === "same") {
    expect(composed.observation).toEqual(alone.observation);
  } else {
    expect(composed.observation).not.toEqual(alone.observation);
    expect(composed.warnings.join("\n")).toContain(expected.warns);
    expect(composed.warnings.join("\n")).toContain("after ...recommendedGuards().agent");
  }
  return composed;
}
