import {
  ClearToolUsesEdit,
  contextEditingMiddleware,
  dynamicSystemPromptMiddleware,
  humanInTheLoopMiddleware,
  llmToolSelectorMiddleware,
  piiMiddleware,
  summarizationMiddleware,
  todoListMiddleware,
  toolCallLimitMiddleware,
  toolEmulatorMiddleware,
} from "langchain";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createAgent, type AgentMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Signal } from "../../src/core/signals.js";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { ScriptedChatModel } from "../../src/testing/index.js";
import { expectComposes, runScenario, type Scenario } from "./composeBuiltins.harness.js";

/**
 * Every other LangChain built-in beside recommendedGuards().agent, listed before and after the
 * guards, against the built-in alone (docs/composing.md): the tool's executions, what the model
 * reads and is offered, interrupts and resumes, and whether invoke throws are the same.
 * The error handlers are in composeBuiltins.toolErrors.test.ts and composeBuiltins.model.test.ts;
 * refusalIsNotAResult.test.ts also replays the human-in-the-loop and call-limit runs through the guards.
 */

const search = (query: string) => ({ name: "search_docs", args: { query } });
const email = { name: "send_email", args: { to: "ana@example.com", body: "Hi" } };
const reject = { decisions: [{ type: "reject", message: "Not yet." }] };

const cases: Array<[string, Scenario]> = [
  [
    "summarizationMiddleware: the history is summarised mid-run",
    {
      builtIn: ({ side }) => summarizationMiddleware({ model: side, trigger: { messages: 5 }, keep: { messages: 2 } }),
      sideTurns: Array.from({ length: 10 }, () => ({ text: "Earlier: the user asked about refunds." })),
      turns: [
        { toolCalls: [search("refunds")] },
        { toolCalls: [search("returns")] },
        { toolCalls: [search("exchanges")] },
        { text: "done" },
      ],
    },
  ],
  [
    "humanInTheLoopMiddleware: a call approved after two identical rejects runs",
    {
      builtIn: () => humanInTheLoopMiddleware({ interruptOn: { send_email: true } }),
      turns: [{ toolCalls: [email] }, { toolCalls: [email] }, { toolCalls: [email] }, { text: "sent" }],
      steps: [
        { say: "email Ana" },
        { resume: reject },
        { resume: reject },
        { resume: { decisions: [{ type: "approve" }] } },
      ],
    },
  ],
  [
    "humanInTheLoopMiddleware: an edited call runs as edited",
    {
      builtIn: () => humanInTheLoopMiddleware({ interruptOn: { send_email: true } }),
      turns: [{ toolCalls: [email] }, { text: "sent" }],
      steps: [
        { say: "email Ana" },
        {
          resume: {
            decisions: [
              { type: "edit", editedAction: { name: "send_email", args: { to: "ana@example.com", body: "Hello" } } },
            ],
          },
        },
      ],
    },
  ],
  [
    "toolCallLimitMiddleware: calls blocked in one run run in the next",
    {
      builtIn: () => toolCallLimitMiddleware({ toolName: "search_docs", runLimit: 1, exitBehavior: "continue" }),
      turns: [
        { toolCalls: [search("refunds")] },
        { toolCalls: [search("refunds"), search("refunds")] },
        { toolCalls: [search("refunds")] },
        { text: "found it" },
      ],
      steps: [{ say: "find the refund policy" }, { say: "try once more" }],
    },
  ],
  [
    "toolCallLimitMiddleware: exitBehavior error",
    {
      builtIn: () => toolCallLimitMiddleware({ runLimit: 1, exitBehavior: "error" }),
      turns: [{ toolCalls: [search("refunds")] }, { toolCalls: [search("returns")] }, { text: "done" }],
    },
  ],
  [
    "toolCallLimitMiddleware: exitBehavior end",
    {
      builtIn: () => toolCallLimitMiddleware({ runLimit: 1, exitBehavior: "end" }),
      turns: [{ toolCalls: [search("refunds")] }, { toolCalls: [search("returns")] }, { text: "done" }],
    },
  ],
  [
    "contextEditingMiddleware: old tool results are cleared from the request",
    {
      builtIn: () =>
        contextEditingMiddleware({
          edits: [new ClearToolUsesEdit({ trigger: { tokens: 60 }, keep: { messages: 1 } })],
        }),
      turns: [
        { toolCalls: [search("refunds")] },
        { toolCalls: [search("returns")] },
        { toolCalls: [search("exchanges")] },
        { text: "done" },
      ],
    },
  ],
  [
    "piiMiddleware: emails redacted in the input and in tool results",
    {
      builtIn: () => piiMiddleware("email", { strategy: "redact", applyToInput: true, applyToToolResults: true }),
      turns: [{ toolCalls: [search("refunds")] }, { toolCalls: [search("returns")] }, { text: "done" }],
      steps: [{ say: "I am bob@example.com, find the refund policy" }],
    },
  ],
  [
    "piiMiddleware: strategy block ends invoke",
    {
      builtIn: () => piiMiddleware("email", { strategy: "block", applyToToolResults: true }),
      turns: [{ toolCalls: [search("refunds")] }, { text: "done" }],
    },
  ],
  [
    "todoListMiddleware: the model writes its todos",
    {
      builtIn: () => todoListMiddleware(),
      turns: [
        {
          toolCalls: [
            { name: "write_todos", args: { todos: [{ content: "find the policy", status: "in_progress" }] } },
          ],
        },
        { toolCalls: [search("refunds")] },
        { text: "done" },
      ],
    },
  ],
  [
    "llmToolSelectorMiddleware: the model is offered the selected tools",
    {
      builtIn: ({ side }) => llmToolSelectorMiddleware({ model: side, maxTools: 1 }),
      sideTurns: Array.from({ length: 4 }, () => ({
        toolCalls: [{ name: "extract", args: { tools: ["search_docs"] } }],
      })),
      turns: [{ toolCalls: [search("refunds")] }, { text: "done" }],
    },
  ],
  [
    "toolEmulatorMiddleware: an emulated tool does not run",
    {
      builtIn: ({ side }) => toolEmulatorMiddleware({ tools: ["send_email"], model: side }),
      sideTurns: [{ text: "queued for ana@example.com" }],
      turns: [{ toolCalls: [email] }, { toolCalls: [search("refunds")] }, { text: "done" }],
    },
  ],
  [
    "dynamicSystemPromptMiddleware: the prompt follows the state",
    {
      builtIn: () =>
        dynamicSystemPromptMiddleware(
          (state: { messages: unknown[] }) => `You are a support agent; ${state.messages.length} messages so far.`,
        ),
      turns: [{ toolCalls: [search("refunds")] }, { text: "done" }],
    },
  ],
];

describe.each(["before the guards", "after the guards"] as const)("listed %s: the same as alone", (order) => {
  it.each(cases)("%s", async (_, scenario) => {
    await expectComposes(scenario, order, "same");
  });
});

describe("the scenarios exercise what they name", () => {
  const observe = async (name: string) =>
    (await runScenario(cases.find(([n]) => n.startsWith(name))![1], "after the guards")).observation;

  it("the summary replaces the history the model reads", async () => {
    const { modelRead } = await observe("summarizationMiddleware");
    expect(modelRead.at(-1)!.some((line) => line.includes("Earlier: the user asked about refunds."))).toBe(true);
  });

  it("human in the loop: four interrupts and resumes, one run of the approved call", async () => {
    const { ran, steps } = await observe("humanInTheLoopMiddleware: a call approved");
    expect(steps).toEqual(["interrupts: 1", "interrupts: 1", "interrupts: 1", "interrupts: 0"]);
    expect(ran).toEqual(['send_email {"to":"ana@example.com","body":"Hi"}']);
  });

  it("the call limit blocks, then allows in the next run; exitBehavior error rejects", async () => {
    expect((await observe("toolCallLimitMiddleware: calls blocked")).ran).toHaveLength(2);
    expect((await observe("toolCallLimitMiddleware: exitBehavior error")).steps[0]).toMatch(
      /^threw ToolCallLimitExceededError/,
    );
  });

  it("context editing clears a tool result the model read before", async () => {
    const { modelRead } = await observe("contextEditingMiddleware");
    expect(modelRead.at(-1)!.some((line) => line === "tool: [cleared]")).toBe(true);
  });

  it("PII: the model reads neither address; block rejects", async () => {
    const { modelRead } = await observe("piiMiddleware: emails");
    expect(modelRead.flat().some((line) => /bob@example\.com|help@example\.com/.test(line))).toBe(false);
    expect((await observe("piiMiddleware: strategy block")).steps[0]).toMatch(/^threw PIIDetectionError/);
  });

  it("the selector offers one tool; the emulated email never runs", async () => {
    expect((await observe("llmToolSelectorMiddleware")).offered[0]).toContain("search_docs");
    expect((await observe("llmToolSelectorMiddleware")).offered[0]).not.toContain("send_email");
    expect((await observe("toolEmulatorMiddleware")).ran).toEqual(['search_docs {"query":"refunds"}']);
  });
});

describe("the other way round: the guards beside a built-in", () => {
  /** The guards' signals on an agent that repeats one search whose result names an email address. */
  const guardSignals = async (compose: (guards: AgentMiddleware[]) => AgentMiddleware[]) => {
    const signals: Signal[] = [];
    const searchDocs = tool(async () => "write to help@example.com", {
      name: "search_docs",
      description: "Search the docs.",
      schema: z.object({ query: z.string() }),
    });
    const repeat = { toolCalls: [search("refunds")] };
    const model = new ScriptedChatModel({
      turns: [repeat, repeat, repeat, repeat, repeat, repeat, repeat, { text: "done" }],
    });
    const agent = createAgent({
      model,
      tools: [searchDocs],
      middleware: compose(recommendedGuards({ onSignal: (s) => signals.push(s) }).agent),
    });
    await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 200 });
    return signals.map((s) => `${s.guard}:${s.code}:${s.action}`);
  };

  // piiMiddleware rebuilds a redacted tool result without its response_metadata (the guards' run
  // stamp goes with it); an answer that is not an error was not written before the tools ran.
  it("piiMiddleware redacting tool results: the loop guards still see the repeats", async () => {
    const plain = await guardSignals((guards) => guards);
    expect(plain).toContain("ProgressAwareLoopGuardMiddleware:no_progress:stop");
    expect(await guardSignals((guards) => [piiMiddleware("email", { applyToToolResults: true }), ...guards])).toEqual(
      plain,
    );
  });
});
