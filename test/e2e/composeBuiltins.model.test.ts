import { HumanMessage } from "@langchain/core/messages";
import {
  createAgent,
  dynamicSystemPromptMiddleware,
  modelCallLimitMiddleware,
  modelFallbackMiddleware,
  modelRetryMiddleware,
} from "langchain";
import { describe, expect, it } from "vitest";
import { ScriptedChatModel } from "../../src/testing/index.js";
import { expectComposes, rateLimited, RateLimitError, runScenario, type Scenario } from "./composeBuiltins.harness.js";

/**
 * The built-ins around the model call, beside recommendedGuards().agent (docs/composing.md,
 * "Model errors"). Each runs alone and with the guards, listed before and after them.
 */

const search = { toolCalls: [{ name: "search_docs", args: { query: "refunds" } }] };
const fast = { initialDelayMs: 0, jitter: false } as const;

/** Built-ins that keep their meaning in either order. */
const both: Array<[string, Scenario]> = [
  [
    "modelRetryMiddleware: default retryOn, the model fails twice then answers",
    { builtIn: () => modelRetryMiddleware({ ...fast }), turns: [rateLimited, rateLimited, search, { text: "done" }] },
  ],
  [
    "modelRetryMiddleware: onFailure error, invoke rejects",
    {
      builtIn: () => modelRetryMiddleware({ ...fast, maxRetries: 1, onFailure: "error" }),
      turns: [rateLimited, rateLimited],
    },
  ],
  [
    "modelFallbackMiddleware: the primary model fails, the fallback answers",
    {
      builtIn: ({ side }) => modelFallbackMiddleware(side),
      turns: [rateLimited, rateLimited],
      sideTurns: [search, { text: "done by the fallback" }],
    },
  ],
  [
    "modelCallLimitMiddleware: runLimit, exitBehavior end",
    {
      builtIn: () => modelCallLimitMiddleware({ runLimit: 2, exitBehavior: "end" }),
      turns: [search, search, search, { text: "done" }],
    },
  ],
  [
    "modelCallLimitMiddleware: runLimit, exitBehavior error",
    {
      builtIn: () => modelCallLimitMiddleware({ runLimit: 1, exitBehavior: "error" }),
      turns: [search, search, { text: "done" }],
    },
  ],
  [
    "modelCallLimitMiddleware: threadLimit across two user messages",
    {
      builtIn: () => modelCallLimitMiddleware({ threadLimit: 3, exitBehavior: "end" }),
      turns: [search, { text: "first" }, search, { text: "second" }],
      steps: [{ say: "one" }, { say: "two" }],
    },
  ],
];

/** Built-ins that keep their meaning listed after the guards only. */
const afterOnly: Array<[string, Scenario]> = [
  [
    "modelRetryMiddleware: retryOn an error class",
    {
      builtIn: () => modelRetryMiddleware({ ...fast, retryOn: [RateLimitError] }),
      turns: [rateLimited, rateLimited, search, { text: "done" }],
    },
  ],
  [
    "modelRetryMiddleware: onFailure continue names the error class",
    {
      builtIn: () => modelRetryMiddleware({ ...fast, maxRetries: 1, onFailure: "continue" }),
      turns: [rateLimited, rateLimited],
    },
  ],
];

describe("model built-ins listed after the guards keep their meaning", () => {
  it.each([...both, ...afterOnly])("%s", async (_, scenario) => {
    await expectComposes(scenario, "after the guards", "same");
  });
});

describe("model built-ins listed before the guards", () => {
  it.each(both)("%s: the same", async (_, scenario) => {
    await expectComposes(scenario, "before the guards", "same");
  });

  it.each(afterOnly)("%s: the guards warn, naming modelRetryMiddleware", async (_, scenario) => {
    await expectComposes(scenario, "before the guards", { warns: "modelRetryMiddleware is listed before the guards" });
  });
});

describe("what the observations are", () => {
  it("retryOn listed after the guards: the model is called again and the run ends normally", async () => {
    const { observation } = await runScenario(afterOnly[0]![1], "after the guards");
    expect(observation.modelRead).toHaveLength(4);
    expect(observation.last).toBe("ai: done");
  });

  it("retryOn listed before the guards: LangChain hands the retry a MiddlewareError, so it gives up at once", async () => {
    const { observation } = await runScenario(afterOnly[0]![1], "before the guards");
    expect(observation.modelRead).toHaveLength(1);
    expect(observation.last).toMatch(/^ai: Model call failed after 1 attempt with MiddlewareError/);
  });
});

describe("LangChain alone", () => {
  it("any wrapModelCall middleware between modelRetryMiddleware and the model hides the error's class from retryOn", async () => {
    const model = new ScriptedChatModel({ turns: [rateLimited, { text: "done" }] });
    const agent = createAgent({
      model,
      tools: [],
      middleware: [
        modelRetryMiddleware({ ...fast, retryOn: [RateLimitError] }),
        dynamicSystemPromptMiddleware(() => "You help."),
      ],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("hi")] });
    expect(model.callCount).toBe(1);
    expect(String(messages.at(-1)!.content)).toMatch(/^Model call failed after 1 attempt with MiddlewareError/);
  });
});
