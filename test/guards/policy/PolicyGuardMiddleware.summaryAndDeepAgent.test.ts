import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createDeepAgent, StateBackend } from "deepagents";
import { createAgent, summarizationMiddleware, type AgentMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { PolicyRules } from "../../../src/guards/policy/rules.js";
import { recommendedGuards } from "../../../src/stack/recommendedGuards.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";

const RULES: PolicyRules = {
  rules: [
    {
      id: "no-transfer-after-web",
      decision: "deny",
      tool: "transfer_funds",
      when: { after: { tool: "fetch_url" } },
      reason: "a web page was read in this thread",
    },
    {
      id: "no-secrets-file",
      decision: "deny",
      tool: "write_file",
      args: { file_path: { matches: "^/secrets/" } },
      reason: "{args.file_path} is a protected path",
    },
    { id: "review-edits", decision: "ask", tool: "edit_file", reason: "edits are reviewed" },
  ],
};

const toolMessages = (messages: BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
const summarised = (messages: readonly BaseMessage[]) =>
  messages.some((m) => (m.additional_kwargs as { lc_source?: unknown }).lc_source === "summarization");

function summaries(): AgentMiddleware {
  const summariser = new ScriptedChatModel({
    turns: Array.from({ length: 50 }, () => ({ text: "Earlier: the agent called tools." })),
  });
  return summarizationMiddleware({ model: summariser, trigger: { messages: 4 }, keep: { messages: 2 } });
}

describe.each([
  ["summary before the stack", true],
  ["summary after the stack", false],
])("a flow rule across a LangChain summary (%s)", (_name, summaryFirst) => {
  it("the fetch_url the summary removed still taints the thread: the transfer is denied", async () => {
    const ran: string[] = [];
    const make = (name: string) =>
      tool(async () => (ran.push(name), `${name} ok`), {
        name,
        description: name,
        schema: z.object({ n: z.number().optional() }),
      });
    const notes: ScriptedTurn[] = Array.from({ length: 5 }, (_, i) => ({
      toolCalls: [{ name: "take_note", args: { n: i } }],
    }));
    const guards = recommendedGuards({ policy: RULES }).agent;
    const agent = createAgent({
      model: new ScriptedChatModel({
        turns: [
          { toolCalls: [{ name: "fetch_url", args: {} }] },
          ...notes,
          { toolCalls: [{ name: "transfer_funds", args: { n: 1 } }] },
          { text: "done" },
        ],
      }),
      tools: ["fetch_url", "take_note", "transfer_funds"].map(make),
      middleware: summaryFirst ? [summaries(), ...guards] : [...guards, summaries()],
      checkpointer: new MemorySaver(),
    });
    const { messages } = await agent.invoke(
      { messages: [new HumanMessage("go")] },
      { configurable: { thread_id: "t" }, recursionLimit: 200 },
    );
    expect(summarised(messages)).toBe(true);
    expect(messages.some((m) => ToolMessage.isInstance(m) && m.name === "fetch_url")).toBe(false); // the summary removed it
    expect(ran).not.toContain("transfer_funds");
    expect(String(toolMessages(messages).at(-1)!.content)).toContain('"no-transfer-after-web"');
    assertToolCallPairing(messages);
  });
});

describe("PolicyGuardMiddleware in createDeepAgent", () => {
  it("denies a deepagents file tool by argument pattern, asks before an edit, and resumes", async () => {
    const agent = createDeepAgent({
      model: new ScriptedChatModel({
        turns: [
          {
            toolCalls: [
              { name: "write_file", args: { file_path: "/secrets/key.txt", content: "x" } },
              { name: "write_file", args: { file_path: "/notes.txt", content: "hello" } },
            ],
          },
          {
            toolCalls: [
              { name: "edit_file", args: { file_path: "/notes.txt", old_string: "hello", new_string: "hi" } },
            ],
          },
          { text: "done" },
        ],
      }),
      backend: (config) => new StateBackend(config),
      middleware: recommendedGuards({ policy: RULES }).deepAgent,
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "deep" }, recursionLimit: 100 };
    const first = await agent.invoke({ messages: [new HumanMessage("write")] }, config);
    expect((first.__interrupt__ as unknown[]).length).toBe(1);
    const done = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    const answers = toolMessages(done.messages).map((m) => String(m.content));
    expect(answers[0]).toContain("/secrets/key.txt is a protected path");
    expect(Object.keys(done.files ?? {})).toEqual(["/notes.txt"]);
    expect(JSON.stringify(done.files?.["/notes.txt"])).toContain("hi");
    assertToolCallPairing(done.messages);
  });
});
