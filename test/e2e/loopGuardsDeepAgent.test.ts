import { describe, expect, it } from "vitest";
import { createDeepAgent } from "deepagents";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { LoopGuardMiddleware, ProgressAwareLoopGuardMiddleware, type Signal } from "../../src/index.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";

function jobStatusTool() {
  const counter = { runs: 0 };
  const t = tool(async () => (counter.runs++, JSON.stringify({ status: "running", at: new Date().toISOString() })), {
    name: "job_status",
    description: "status of a job",
    schema: z.object({ id: z.number() }),
  });
  return { tool: t, counter };
}

const poll: ScriptedTurn = { toolCalls: [{ name: "job_status", args: { id: 7 } }] };
const polls = (n: number) => Array.from({ length: n }, () => poll);

describe("loop guards inside createDeepAgent", () => {
  it("stop a polling loop of the main agent", async () => {
    const status = jobStatusTool();
    const signals: Signal[] = [];
    const agent = createDeepAgent({
      model: new ScriptedChatModel({ turns: polls(10) }),
      tools: [status.tool],
      middleware: [
        new LoopGuardMiddleware(),
        new ProgressAwareLoopGuardMiddleware({ onSignal: (s) => signals.push(s) }),
      ],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("wait for job 7")] });
    assertToolCallPairing(result.messages);
    expect(status.counter.runs).toBe(2);
    expect(signals.map((s) => s.action)).toEqual(["directive", "directive", "stop"]);
    expect(String(result.messages.at(-1)?.content)).toMatch(/^Run stopped by ProgressAwareLoopGuardMiddleware/);
  });

  it("stop a polling loop inside a task subagent when passed to it, and the parent goes on", async () => {
    const status = jobStatusTool();
    const signals: Signal[] = [];
    const guards = [new ProgressAwareLoopGuardMiddleware({ onSignal: (s) => signals.push(s) })];
    const model = new ScriptedChatModel({
      turns: [
        {
          toolCalls: [
            { name: "task", args: { description: "wait for job 7 to finish", subagent_type: "general-purpose" } },
          ],
        },
        ...polls(10).slice(0, 5), // the subagent polls; the guard stops it at the 5th
        { text: "The job watcher was stopped; job 7 is still running." },
      ],
    });
    const agent = createDeepAgent({
      model,
      tools: [status.tool],
      middleware: guards,
      subagents: [
        {
          name: "general-purpose",
          description: "does anything",
          systemPrompt: "You are a helper.",
          middleware: guards,
        },
      ],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("start job 7 and wait")] });
    assertToolCallPairing(result.messages);
    expect(status.counter.runs).toBe(2);
    expect(signals.map((s) => s.action)).toEqual(["directive", "directive", "stop"]);
    const taskAnswer = result.messages.find((m: BaseMessage) => ToolMessage.isInstance(m) && m.name === "task");
    expect(String(taskAnswer?.content)).toMatch(/Run stopped by ProgressAwareLoopGuardMiddleware/);
    expect(String(result.messages.at(-1)?.content)).toBe("The job watcher was stopped; job 7 is still running.");
  });
});
