import { describe, expect, it } from "vitest";
import { createAgent, humanInTheLoopMiddleware, summarizationMiddleware, type AgentMiddleware } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { LoopGuardMiddleware } from "../../src/guards/loop/LoopGuardMiddleware.js";
import { recommendedGuards, type RecommendedGuardsOptions } from "../../src/stack/recommendedGuards.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { VALID_ACCOUNT, accountSchema, readAccount, writeAccount } from "../guards/output/fixtures.js";

/**
 * Judgement survives LangChain's summarizationMiddleware (issue 11, point 3): with a summary every
 * few messages, the stack decides as it would on the whole history.
 */

const INVALID_ACCOUNT = JSON.stringify({ id: 7, plan: "enterprise", seats: 3 });

function summaries(): AgentMiddleware {
  const summariser = new ScriptedChatModel({
    turns: Array.from({ length: 200 }, () => ({ text: "Earlier: the agent called tools." })),
  });
  return summarizationMiddleware({ model: summariser, trigger: { messages: 4 }, keep: { messages: 2 } });
}

function agentWith(turns: ScriptedTurn[], options: RecommendedGuardsOptions, summaryFirst: boolean | "no summaries") {
  const writes: unknown[] = [];
  let reads = 0;
  let polls = 0;
  const getAccount = tool(async () => (reads++ === 0 ? INVALID_ACCOUNT : VALID_ACCOUNT), {
    name: "get_account",
    description: "Reads an account.",
    schema: z.object({ id: z.number() }),
  });
  const updateAccount = tool(async (args) => (writes.push(args), "updated"), {
    name: "update_account",
    description: "Changes an account.",
    schema: z.object({ id: z.number(), seats: z.number() }),
  });
  // the same answer every time: a poll that shows progress is not a loop
  const pollJob = tool(async () => (polls++, "status: running"), {
    name: "poll_job",
    description: "Job status.",
    schema: z.object({ job: z.string() }),
  });
  const note = tool(async ({ text }: { text: string }) => `noted ${text}`, {
    name: "take_note",
    description: "Notes.",
    schema: z.object({ text: z.string() }),
  });
  const guards = recommendedGuards({
    writeTools: ["update_account"],
    outputSpecs: { get_account: { schema: accountSchema, onInvalid: "degrade" } },
    ...options,
  }).agent;
  const model = new ScriptedChatModel({ turns });
  const agent = createAgent({
    model,
    tools: [getAccount, updateAccount, pollJob, note],
    middleware:
      summaryFirst === "no summaries" ? guards : summaryFirst ? [summaries(), ...guards] : [...guards, summaries()],
    checkpointer: new MemorySaver(),
  });
  const run = async (): Promise<BaseMessage[]> =>
    (
      await agent.invoke(
        { messages: [new HumanMessage("go")] },
        { configurable: { thread_id: "t" }, recursionLimit: 500 },
      )
    ).messages;
  return { agent, run, model, writes, polls: () => polls };
}

const notes = (n: number, from = 0): ScriptedTurn[] =>
  Array.from({ length: n }, (_, i) => ({ toolCalls: [{ name: "take_note", args: { text: `n${from + i}` } }] }));
const summarised = (messages: readonly BaseMessage[]) =>
  messages.some((m) => (m.additional_kwargs as { lc_source?: unknown }).lc_source === "summarization");
const stoppedBy = (messages: readonly BaseMessage[]) =>
  (messages.at(-1)!.response_metadata as { harness_kit?: { guard?: string } }).harness_kit?.guard;

describe.each([
  ["summary before the stack", true],
  ["summary after the stack", false],
])("judgement across summaries (%s)", (_name, summaryFirst) => {
  it("a stale poll keeps counting: the run stops at the same poll as without summaries", async () => {
    const polls = Array.from({ length: 12 }, () => ({ toolCalls: [{ name: "poll_job", args: { job: "j1" } }] }));
    const unsummarised = agentWith([...polls, { text: "never" }], {}, "no summaries");
    const expected = await unsummarised.run();
    const a = agentWith([...polls, { text: "never" }], {}, summaryFirst);
    const messages = await a.run();
    assertToolCallPairing(messages);
    expect(summarised(messages)).toBe(true);
    expect(stoppedBy(messages)).toBe(stoppedBy(expected));
    expect(stoppedBy(messages)).toMatch(/LoopGuardMiddleware$/);
    expect(a.polls()).toBe(unsummarised.polls());
    expect(a.polls()).toBeLessThan(12);
  });

  it("safe mode holds: a write after a summary removed the invalid read is still refused", async () => {
    const a = agentWith(
      [{ toolCalls: [readAccount] }, ...notes(4), { toolCalls: [writeAccount] }, { text: "done" }],
      {},
      summaryFirst,
    );
    const messages = await a.run();
    assertToolCallPairing(messages);
    expect(summarised(messages)).toBe(true);
    expect(
      messages.some(
        (m) => ToolMessage.isInstance(m) && m.tool_call_id && String(m.content).includes("ToolOutputInvalid"),
      ),
    ).toBe(false); // summarised away
    expect(a.writes).toEqual([]);
  });

  it("token totals keep adding up: maxRunTokens stops the run at the same model call", async () => {
    const spend = (turn: ScriptedTurn, i: number): ScriptedTurn => ({
      ...turn,
      usage: { input_tokens: 9_000 + i, output_tokens: 1_000 },
    });
    const a = agentWith(
      [...notes(10).map(spend), { text: "never" }],
      { runaway: { maxRunTokens: 50_000 } },
      summaryFirst,
    );
    const messages = await a.run();
    assertToolCallPairing(messages);
    expect(summarised(messages)).toBe(true);
    expect(stoppedBy(messages)).toBe("RunawayGuardMiddleware");
    expect(a.model.callCount).toBe(5);
  });

  it("unusable calls keep counting: the third call to a missing tool stops the run", async () => {
    const missing: ScriptedTurn = { toolCalls: [{ name: "no_such_tool", args: {} }] };
    const a = agentWith(
      [missing, ...notes(3, 0), missing, ...notes(3, 3), missing, { text: "never" }],
      {},
      summaryFirst,
    );
    const messages = await a.run();
    assertToolCallPairing(messages);
    expect(summarised(messages)).toBe(true);
    expect(stoppedBy(messages)).toBe("ToolCallRepairMiddleware");
  });
});

describe("a guard used alone carries its own history", () => {
  it("LoopGuardMiddleware without the stack still counts identical calls across summaries", async () => {
    let polls = 0;
    const pollJob = tool(async () => (polls++, "status: running"), {
      name: "poll_job",
      description: "Job status.",
      schema: z.object({ job: z.string() }),
    });
    const turns = [
      ...Array.from({ length: 12 }, () => ({ toolCalls: [{ name: "poll_job", args: { job: "j1" } }] })),
      { text: "never" },
    ];
    const agent = createAgent({
      model: new ScriptedChatModel({ turns }),
      tools: [pollJob],
      middleware: [summaries(), new LoopGuardMiddleware()],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 500 });
    assertToolCallPairing(messages);
    expect(summarised(messages)).toBe(true);
    expect(stoppedBy(messages)).toBe("LoopGuardMiddleware");
    expect(polls).toBe(6);
  });
});

describe("a thread that changes process right after a summary", () => {
  it("judges what the summary removed from the checkpoint it was made from: the run stops at the same poll", async () => {
    const polls = Array.from({ length: 12 }, () => ({ toolCalls: [{ name: "poll_job", args: { job: "j1" } }] }));
    const unsummarised = agentWith([...polls, { text: "never" }], {}, "no summaries");
    const expected = await unsummarised.run();
    const a = agentWith([...polls, { text: "never" }], {}, true);
    // Each summary ends the invoke; the next one starts from the checkpoint, where no message is one this process saw.
    const config = {
      configurable: { thread_id: "t" },
      recursionLimit: 500,
      interruptAfter: ["SummarizationMiddleware.before_model"],
    };
    let { messages } = await a.agent.invoke({ messages: [new HumanMessage("go")] }, config);
    let resumes = 0;
    while (stoppedBy(messages) === undefined && resumes++ < 20) ({ messages } = await a.agent.invoke(null, config));
    assertToolCallPairing(messages);
    expect(resumes).toBeGreaterThanOrEqual(2);
    expect(stoppedBy(messages)).toBe(stoppedBy(expected));
    expect(a.polls()).toBe(unsummarised.polls());
  });
});

describe("a summary made right before a human-in-the-loop interrupt", () => {
  it("is judged with what it removed once the run resumes: the same decisions as without summaries", async () => {
    const run = async (summarise: boolean) => {
      const signals: string[] = [];
      const poll = (id: string) => ({ toolCalls: [{ name: "poll_job", args: { job: "j1" }, id }] });
      const note = (id: string) => ({ toolCalls: [{ name: "take_note", args: { text: id }, id }] });
      const model = new ScriptedChatModel({
        turns: [
          poll("p1"),
          note("n1"),
          note("n2"),
          { text: "noted" },
          note("n3"),
          poll("p2"),
          poll("p3"),
          { text: "done" },
        ],
      });
      const tools = ["poll_job", "take_note"].map((name) =>
        tool(async () => `${name}: running`, { name, description: name, schema: z.object({}).passthrough() }),
      );
      const agent = createAgent({
        model,
        tools,
        middleware: [
          humanInTheLoopMiddleware({ interruptOn: { take_note: true } }),
          ...(summarise ? [summaries()] : []),
          ...recommendedGuards({ onSignal: (s) => signals.push(`${s.guard}:${s.action}:${s.toolCallId}`) }).agent,
        ],
        checkpointer: new MemorySaver(),
      });
      const config = { configurable: { thread_id: "t" } };
      for (const text of ["go", "go on"]) {
        let result = await agent.invoke({ messages: [new HumanMessage(text)] }, config);
        while (result.__interrupt__?.length)
          result = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
      }
      const { messages } = (await agent.graph.getState(config)).values as { messages: BaseMessage[] };
      return { signals, summarised: summarised(messages) };
    };
    const expected = await run(false);
    const got = await run(true);
    expect(got.summarised).toBe(true);
    expect(expected.signals).toEqual(["ProgressAwareLoopGuardMiddleware:directive:p3"]);
    expect(got.signals).toEqual(expected.signals);
  });
});
