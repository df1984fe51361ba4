import { describe, expect, it } from "vitest";
import { createDeepAgent } from "deepagents";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ProgressAwareLoopGuardMiddleware } from "../../../src/guards/progress/ProgressAwareLoopGuardMiddleware.js";
import { RunawayGuardMiddleware } from "../../../src/guards/runaway/RunawayGuardMiddleware.js";
import type { RunawayReport } from "../../../src/guards/runaway/report.js";
import type { Signal } from "../../../src/core/signals.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";

const usage = { input_tokens: 1000, output_tokens: 0 };
const lookupTool = () =>
  tool(async ({ key }: { key: string }) => `value of ${key}`, {
    name: "lookup",
    description: "look a key up",
    schema: z.object({ key: z.string() }),
  });
const repeat = <T>(n: number, item: T): T[] => Array.from({ length: n }, () => item);
const task = (subagent: string, description: string): ScriptedTurn => ({
  toolCalls: [{ name: "task", args: { description, subagent_type: subagent } }],
  usage,
});

describe("RunawayGuardMiddleware inside createDeepAgent", () => {
  it("reports per run the share of work delegated to task subagents", async () => {
    const reports: RunawayReport[] = [];
    const guard = new RunawayGuardMiddleware({ onReport: (r) => reports.push(r) });
    const model = new ScriptedChatModel({
      turns: [
        task("researcher", "find the owner of key a"),
        { text: "The owner of a is Ada.", usage }, // the researcher subagent answers
        task("general-purpose", "summarise the findings"),
        { text: "Summary: Ada owns a.", usage }, // the general-purpose subagent answers
        { toolCalls: [{ name: "lookup", args: { key: "b" } }], usage },
        { text: "Ada owns a; b has a value.", usage },
      ],
    });
    const subagent = (name: string) => ({
      name,
      description: `${name} helper`,
      systemPrompt: "You help.",
      middleware: [guard],
    });
    const agent = createDeepAgent({
      model,
      tools: [lookupTool()],
      middleware: [guard],
      subagents: [subagent("researcher"), subagent("general-purpose")],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("who owns a, and what is b?")] });
    assertToolCallPairing(result.messages);

    expect(reports).toHaveLength(3);
    const [researcher, generalPurpose, parent] = reports;
    expect(researcher!.delegation).toEqual({ delegatedCalls: 0, directCalls: 0, delegatedShare: 0, bySubagent: {} });
    expect(researcher).toMatchObject({ modelCalls: 1, source: "usage_metadata" });
    expect(generalPurpose).toMatchObject({ modelCalls: 1 });
    expect(parent).toMatchObject({
      modelCalls: 4,
      toolCalls: 3,
      runTokens: 4000,
      peakRunawayFactor: 0,
      source: "usage_metadata",
    });
    expect(parent!.delegation).toEqual({
      delegatedCalls: 2,
      directCalls: 1,
      delegatedShare: 2 / 3,
      bySubagent: { researcher: 1, "general-purpose": 1 },
    });
  });

  it("counts as delegated only the task calls that ran, not those another guard refused", async () => {
    const reports: RunawayReport[] = [];
    const guards = [
      new RunawayGuardMiddleware({ onReport: (r) => reports.push(r) }),
      new ProgressAwareLoopGuardMiddleware(),
    ];
    let subagentRuns = 0;
    const turn: ScriptedTurn = (messages) => {
      if (String(messages.find(HumanMessage.isInstance)?.content) !== "is job 7 done?")
        return task("general-purpose", "is job 7 done?");
      subagentRuns++;
      return { text: "job 7 is still running", usage };
    };
    const agent = createDeepAgent({
      model: new ScriptedChatModel({ turns: repeat(20, turn) }),
      middleware: guards,
      subagents: [
        { name: "general-purpose", description: "does anything", systemPrompt: "You help.", middleware: guards },
      ],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("wait for job 7")] });
    const messages = result.messages as BaseMessage[];
    assertToolCallPairing(messages);
    const taskAnswers = messages.filter((m) => ToolMessage.isInstance(m) && m.name === "task");
    expect(subagentRuns).toBe(2); // the progress guard refuses the repeats, and then stops the run
    expect(taskAnswers.length).toBeGreaterThan(2);

    const parent = reports.at(-1)!;
    expect(parent.toolCalls).toBe(taskAnswers.length); // asked for, refused ones included
    expect(parent.delegation).toEqual({
      delegatedCalls: 2,
      directCalls: 0,
      delegatedShare: 1,
      bySubagent: { "general-purpose": 2 },
    });
  });

  it("stops a runaway main agent and a runaway subagent, each counted on its own", async () => {
    const signals: Signal[] = [];
    const guard = new RunawayGuardMiddleware({ warnAt: 2, blockAt: 3, stopAt: 5, onSignal: (s) => signals.push(s) });
    const lookA: ScriptedTurn = { toolCalls: [{ name: "lookup", args: { key: "a" } }], usage };
    const model = new ScriptedChatModel({
      turns: [
        task("general-purpose", "look key a up until it changes"),
        ...repeat(7, lookA), // the subagent's run: its 3rd call is 1×, stopped at its 7th (5×)
        ...repeat(7, lookA), // the main agent's 2nd to 8th calls: its own history has not seen a yet, stopped at its 8th
      ],
    });
    const agent = createDeepAgent({
      model,
      tools: [lookupTool()],
      middleware: [guard],
      subagents: [
        { name: "general-purpose", description: "does anything", systemPrompt: "You help.", middleware: [guard] },
      ],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("look everything up")] });
    const messages = result.messages as BaseMessage[];
    assertToolCallPairing(messages);
    expect(signals.map((s) => `${s.action}@${String(s.detail?.modelCalls)}`)).toEqual([
      "warn@4",
      "directive@5",
      "directive@6",
      "stop@7", // subagent
      "warn@5",
      "directive@6",
      "directive@7",
      "stop@8", // main agent
    ]);
    const taskAnswer = messages.find((m) => ToolMessage.isInstance(m) && m.name === "task");
    expect(String(taskAnswer?.content)).toMatch(
      /Run stopped by RunawayGuardMiddleware: the run re-read its context 5\.00× over/,
    );
    expect(String(messages.at(-1)?.content)).toMatch(
      /^Run stopped by RunawayGuardMiddleware: the run re-read its context 5\.00× over/,
    );
  });
});
