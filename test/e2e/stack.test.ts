import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { createDeepAgent } from "deepagents";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { recommendedGuards, type Signal } from "../../src/index.js";
import { RETRIEVAL_TOOL_NAME } from "../../src/guards/budget/texts.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { makePng } from "../guards/binary/fixtures.js";

/** Tools of a small support agent, each misbehaving in one of the ways the stack is for. */
function supportTools() {
  const runs: Record<string, number> = {};
  const count = (name: string) => (runs[name] = (runs[name] ?? 0) + 1);
  const tools = [
    tool(
      async () => (
        count("export_logs"),
        Array.from({ length: 40_000 }, (_, i) => `line ${i}: ok`).join("\n") + "\nFATAL: disk full"
      ),
      {
        name: "export_logs",
        description: "Export the service logs",
        schema: z.object({}),
      },
    ),
    tool(async () => (count("read_attachment"), makePng().toString("utf8")), {
      name: "read_attachment",
      description: "Read a ticket attachment",
      schema: z.object({ name: z.string() }),
    }),
    tool(async () => (count("get_account"), "<!DOCTYPE html><html><body>Maintenance</body></html>"), {
      name: "get_account",
      description: "Fetch the account",
      schema: z.object({ id: z.string() }),
    }),
    tool(async () => (count("update_account"), "updated"), {
      name: "update_account",
      description: "Change the account",
      schema: z.object({ id: z.string(), seats: z.number() }),
    }),
    tool(async () => (count("job_status"), JSON.stringify({ state: "running", at: new Date().toISOString() })), {
      name: "job_status",
      description: "Status of a job",
      schema: z.object({ id: z.number() }),
    }),
  ];
  return { tools, runs };
}

const call = (name: string, args: Record<string, unknown> = {}): ScriptedTurn => ({ toolCalls: [{ name, args }] });

describe("recommendedGuards in createAgent", () => {
  it("handles a flood, a binary read, bad output, a malformed call, a phantom tool and a polling loop in one run", async () => {
    const { tools, runs } = supportTools();
    const signals: Signal[] = [];
    const guards = recommendedGuards({
      writeTools: ["update_account"],
      outputSpecs: { get_account: { schema: z.object({ id: z.string(), seats: z.number() }), onInvalid: "degrade" } },
      onSignal: (s) => signals.push(s),
    });
    const turns: ScriptedTurn[] = [
      call("export_logs"),
      (messages) => {
        const preview = String(messages.at(-1)?.content);
        expect(preview).toMatch(/characters omitted/);
        return call(RETRIEVAL_TOOL_NAME, {
          key: (preview.match(/key "([^"]+)"/) ?? preview.match(/"([^"\s]+-[^"\s]+)"/))?.[1] ?? "",
          pattern: "FATAL",
        });
      },
      call("read_attachment", { name: "screenshot.png" }),
      call("get_account", { id: "A1" }),
      call("update_account", { id: "A1", seats: 3 }),
      { invalidToolCalls: [{ name: "update_account", args: '{"id": "A1", "seats": 3', error: "bad json" }] },
      call("delete_everything", { now: true }),
      ...Array.from({ length: 8 }, () => call("job_status", { id: 7 })),
    ];
    const agent = createAgent({ model: new ScriptedChatModel({ turns }), tools, middleware: guards.agent });
    const result = await agent.invoke(
      { messages: [new HumanMessage("Why is the service down?")] },
      { recursionLimit: 200 },
    );
    const messages = result.messages;
    assertToolCallPairing(messages);

    const answers = messages.filter(ToolMessage.isInstance).map((m) => String(m.content));
    expect(answers.some((a) => a.includes("FATAL: disk full"))).toBe(true); // found through the retrieval tool
    expect(answers.some((a) => /PNG/.test(a) && /(OCR|extract)/i.test(a))).toBe(true);
    expect(
      answers.some(
        (a) => a.startsWith("ToolOutputInvalid: html_instead_of_json") || a.includes("html_instead_of_json"),
      ),
    ).toBe(true);
    expect(runs.update_account ?? 0).toBe(0); // safe mode refused the write, and the malformed retry too
    expect(answers.some((a) => /does not exist/.test(a) && /delete_everything/.test(a))).toBe(true);
    // the runaway guard (the previews re-read each turn add up) and the progress guard share the loop
    expect(runs.job_status).toBeLessThanOrEqual(2);
    expect(AIMessage.isInstance(messages.at(-1))).toBe(true);
    expect(String(messages.at(-1)?.content)).toMatch(/^Run stopped by (ProgressAwareLoopGuard|RunawayGuard)Middleware/);
    expect(new Set(signals.map((s) => s.guard)).size).toBeGreaterThanOrEqual(5);
  });
});

describe("recommendedGuards in createDeepAgent", () => {
  it("builds the deep agent's stack once, when first read: deepAgent and subagent are the same middlewares", () => {
    const guards = recommendedGuards();
    const deep = guards.deepAgent;
    expect(guards.deepAgent).toBe(deep);
    expect(guards.subagent).toBe(deep);
    expect(deep[0]).not.toBe(guards.agent[0]); // its own store: the agent's files
    expect({ ...guards }.deepAgent).toBe(deep);
  });

  it("offloads into the agent's files, and guards a task subagent given guards.subagent", async () => {
    const { tools, runs } = supportTools();
    const guards = recommendedGuards();
    const model = new ScriptedChatModel({
      turns: [
        call("export_logs"),
        (messages) => {
          const preview = String(messages.at(-1)?.content);
          const path = preview.match(/\/large_tool_results\/[^\s"'`)]+/)?.[0] ?? "";
          expect(path).not.toBe("");
          return call("grep", { pattern: "FATAL", path });
        },
        call("task", { description: "wait for job 7", subagent_type: "general-purpose" }),
        ...Array.from({ length: 5 }, () => call("job_status", { id: 7 })),
        { text: "The logs say the disk is full; job 7 never finished." },
      ],
    });
    const agent = createDeepAgent({
      model,
      tools,
      middleware: guards.deepAgent,
      subagents: [
        { name: "general-purpose", description: "General helper", systemPrompt: "Help.", middleware: guards.subagent },
      ],
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage("Why is the service down?")] },
      { recursionLimit: 300 },
    );
    assertToolCallPairing(result.messages);
    const answers = result.messages.filter(ToolMessage.isInstance).map((m: ToolMessage) => String(m.content));
    expect(answers.some((a) => a.includes("FATAL: disk full"))).toBe(true);
    expect(answers.some((a) => a.includes("Run stopped by ProgressAwareLoopGuardMiddleware"))).toBe(true); // the task's answer
    expect(runs.job_status).toBe(2);
    expect(String(result.messages.at(-1)?.content)).toBe("The logs say the disk is full; job 7 never finished.");
  });
});
