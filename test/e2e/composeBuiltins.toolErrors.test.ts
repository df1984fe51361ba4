import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createDeepAgent } from "deepagents";
import { createAgent, toolErrorMiddleware, toolRetryMiddleware, type AgentMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { ScriptedChatModel } from "../../src/testing/index.js";
import { expectComposes, FlakyError, runScenario, type Scenario } from "./composeBuiltins.harness.js";

/**
 * The built-ins that handle a tool's exception, beside recommendedGuards().agent (docs/composing.md,
 * "Tool errors"). Listed after the guards they sit next to the tool and keep their meaning, a
 * deliberate re-throw included; listed before the guards they never see the exception, and the
 * guards warn once, naming them and where to list them.
 */

const readRecord = { toolCalls: [{ name: "flaky", args: { id: 7 } }] };
const fast = { initialDelayMs: 0, jitter: false } as const;

const cases: Array<[string, Scenario]> = [
  [
    "toolRetryMiddleware: a tool that fails twice then succeeds runs three times",
    { builtIn: () => toolRetryMiddleware({ ...fast }), flakyFailures: 2, turns: [readRecord, { text: "done" }] },
  ],
  [
    "toolRetryMiddleware: retryOn an error class",
    {
      builtIn: () => toolRetryMiddleware({ ...fast, retryOn: [FlakyError] }),
      flakyFailures: 2,
      turns: [readRecord, { text: "done" }],
    },
  ],
  [
    "toolRetryMiddleware: onFailure continue, retries exhausted",
    {
      builtIn: () => toolRetryMiddleware({ ...fast, maxRetries: 1, onFailure: "continue" }),
      turns: [readRecord, { text: "done" }],
    },
  ],
  [
    "toolRetryMiddleware: onFailure as a function",
    {
      builtIn: () => toolRetryMiddleware({ ...fast, maxRetries: 1, onFailure: (error) => `gave up: ${error.name}` }),
      turns: [readRecord, { text: "done" }],
    },
  ],
  [
    "toolRetryMiddleware: onFailure error re-throws, invoke rejects",
    {
      builtIn: () => toolRetryMiddleware({ ...fast, maxRetries: 1, onFailure: "error" }),
      turns: [readRecord, { text: "done" }],
    },
  ],
  [
    "toolRetryMiddleware: an error retryOn does not match, onFailure error",
    {
      builtIn: () => toolRetryMiddleware({ ...fast, retryOn: [TypeError], onFailure: "error" }),
      turns: [readRecord, { text: "done" }],
    },
  ],
  [
    "toolErrorMiddleware: onError's text is what the model reads",
    {
      builtIn: () =>
        toolErrorMiddleware({
          onError: (error) => (error instanceof FlakyError ? "The record service is down, try later." : undefined),
        }),
      turns: [readRecord, { text: "done" }],
    },
  ],
  [
    "toolErrorMiddleware: onError returns nothing, invoke rejects",
    { builtIn: () => toolErrorMiddleware({ onError: () => undefined }), turns: [readRecord, { text: "done" }] },
  ],
  [
    "toolErrorMiddleware limited to another tool: the flaky tool's exception ends invoke",
    {
      builtIn: () => toolErrorMiddleware({ tools: ["search_docs"], onError: () => "search is down" }),
      turns: [readRecord, { text: "done" }],
    },
  ],
];

describe("tool error handlers listed after the guards keep their meaning", () => {
  it.each(cases)("%s", async (_, scenario) => {
    await expectComposes(scenario, "after the guards", "same");
  });
});

describe("tool error handlers listed before the guards: the guards warn, naming them", () => {
  it.each(cases)("%s", async (_, scenario) => {
    // The built-in's name is the one LangChain gives the middleware: the warning names it.
    const { name } = scenario.builtIn({ side: new ScriptedChatModel({ turns: [] }) });
    await expectComposes(scenario, "before the guards", { warns: `${name} is listed before the guards` });
  });
});

describe("what the observations are", () => {
  it("after the guards: the retried tool runs three times and the model reads its result", async () => {
    const { observation, warnings } = await runScenario(cases[0]![1], "after the guards");
    expect(observation.ran).toHaveLength(3);
    expect(observation.modelRead[1]!.at(-1)).toBe("tool: record 7");
    expect(warnings).toEqual([]);
  });

  it("after the guards: a deliberate re-throw ends invoke with the tool's own error", async () => {
    const { observation } = await runScenario(cases[4]![1], "after the guards");
    expect(observation.steps).toEqual(["threw FlakyError: upstream timed out"]);
  });

  it("before the guards: the tool runs once and the model reads the guards' answer", async () => {
    const { observation } = await runScenario(cases[0]![1], "before the guards");
    expect(observation.ran).toHaveLength(1);
    expect(observation.modelRead[1]!.at(-1)).toMatch(/^tool: Tool "flaky" failed: FlakyError/);
  });

  it("the guards alone still answer a tool's exception instead of ending the run", async () => {
    const { observation, warnings } = await runScenario(
      {
        builtIn: () => toolErrorMiddleware({ onError: () => undefined, tools: ["search_docs"] }),
        turns: [readRecord, { text: "done" }],
      },
      "before the guards",
    );
    expect(observation.steps).toEqual(["interrupts: 0"]);
    expect(observation.modelRead[1]!.at(-1)).toMatch(/^tool: Tool "flaky" failed/);
    // The guards see their callers: the warning names the built-in before them, once, and nothing else.
    expect(warnings).toEqual([expect.stringContaining("toolErrorMiddleware is listed before the guards")]);
  });
});

describe("createDeepAgent with guards.deepAgent", () => {
  const run = async (after: AgentMiddleware[]) => {
    let runs = 0;
    const flaky = tool(
      async () => {
        if (++runs < 3) throw new FlakyError("upstream timed out");
        return "record 7";
      },
      { name: "flaky", description: "Read a record.", schema: z.object({ id: z.number() }) },
    );
    const model = new ScriptedChatModel({ turns: [readRecord, { text: "done" }] });
    const agent = createDeepAgent({ model, tools: [flaky], middleware: [...recommendedGuards().deepAgent, ...after] });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("read record 7")] });
    return {
      runs,
      answers: messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => String(m.content)),
    };
  };

  it("a toolRetryMiddleware after the guards retries the tool", async () => {
    expect(await run([toolRetryMiddleware({ ...fast })])).toEqual({ runs: 3, answers: ["record 7"] });
  });

  it("without one, the guards answer the exception", async () => {
    const { runs, answers } = await run([]);
    expect(runs).toBe(1);
    expect(answers[0]).toMatch(/^Tool "flaky" failed: FlakyError/);
  });
});

describe("LangChain alone", () => {
  it("a toolErrorMiddleware inside a toolRetryMiddleware answers the first failure, and the retry never runs", async () => {
    let runs = 0;
    const flaky = tool(
      async () => {
        runs += 1;
        throw new FlakyError("upstream timed out");
      },
      { name: "flaky", description: "Read a record.", schema: z.object({ id: z.number() }) },
    );
    const model = new ScriptedChatModel({ turns: [readRecord, { text: "done" }] });
    const agent = createAgent({
      model,
      tools: [flaky],
      middleware: [toolRetryMiddleware({ ...fast }), toolErrorMiddleware({ onError: () => "the service is down" })],
    });
    await agent.invoke({ messages: [new HumanMessage("read record 7")] });
    expect(runs).toBe(1);
  });
});
