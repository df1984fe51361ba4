import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createDeepAgent } from "deepagents";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolCallRepairMiddleware } from "../../../src/guards/repair/ToolCallRepairMiddleware.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { LEGITIMATE_REPAIRS, MEANING_CHANGES, type MeaningCase } from "./meaningCorpus.js";
import { NO_PROBLEMS, providerPayloadProblems } from "./payloads.js";

/**
 * The repair corpora through real graphs: a `record` tool remembers every argument object it ran
 * with. A meaning-changing repair would show up as a run whose arguments differ from what the
 * model certainly meant; a lost legitimate repair as a call that never ran.
 */
function recordTool(declaredKeys: string[] | undefined) {
  const runs: Array<{ id: string; args: Record<string, unknown> }> = [];
  // the schema decides whether a missing closing brace can be repaired: closed lists of names allow it
  const schema = declaredKeys ? z.object(Object.fromEntries(declaredKeys.map((k) => [k, z.any()]))) : z.looseObject({});
  const t = tool(
    async (args: Record<string, unknown>, config) => {
      runs.push({ id: String(config?.toolCall?.id), args });
      return "recorded";
    },
    { name: "record", description: "records its arguments", schema },
  );
  return { tool: t, runs };
}

/** Runs every case of one schema as one turn of invalid calls and returns what ran and what was answered. */
async function throughCreateAgent(
  cases: Array<{ raw: string; declaredKeys?: string[] }>,
  declaredKeys: string[] | undefined,
  deep = false,
) {
  const record = recordTool(declaredKeys);
  const turn: ScriptedTurn = {
    invalidToolCalls: cases.map((c, i) => ({ id: `case-${i}`, name: "record", args: c.raw })),
  };
  const model = new ScriptedChatModel({ turns: [turn, { text: "done" }] });
  const middleware = [new ToolCallRepairMiddleware({ stopAt: 10_000 })];
  const agent = deep
    ? createDeepAgent({ model, tools: [record.tool], middleware })
    : createAgent({ model, tools: [record.tool], middleware });
  const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 1_000 });
  const messages = result.messages as BaseMessage[];
  assertToolCallPairing(messages);
  const answers = new Map(messages.filter(ToolMessage.isInstance).map((m) => [m.tool_call_id, String(m.content)]));
  return { runs: record.runs, answers, messages };
}

function bySchema<T extends { declaredKeys?: string[] }>(cases: T[]): Array<[string[] | undefined, T[]]> {
  const groups = new Map<string, T[]>();
  for (const c of cases) {
    const key = JSON.stringify(c.declaredKeys ?? null);
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups].map(([key, group]) => [JSON.parse(key) ?? undefined, group]);
}

/** Runs whose arguments are not the one meaning the case certainly has (any run, when it has none). */
function meaningChanges(cases: MeaningCase[], runs: Array<{ id: string; args: Record<string, unknown> }>): string[] {
  return runs
    .filter((run) => {
      const c = cases[Number(run.id.replace("case-", ""))]!;
      return c.certain === undefined || JSON.stringify(run.args) !== JSON.stringify(c.certain);
    })
    .map((run) => `${cases[Number(run.id.replace("case-", ""))]!.raw} ran as ${JSON.stringify(run.args)}`);
}

describe("ToolCallRepairMiddleware: the meaning-change corpus through real graphs", () => {
  it("createAgent: 0 meaning-changing repairs, and every refusal says what to resend", async () => {
    let total = 0;
    for (const [declaredKeys, cases] of bySchema(MEANING_CHANGES)) {
      const { runs, answers, messages } = await throughCreateAgent(cases, declaredKeys);
      expect(meaningChanges(cases, runs)).toEqual([]);
      for (const [i] of cases.entries()) {
        const answer = answers.get(`case-${i}`)!;
        if (!runs.some((r) => r.id === `case-${i}`))
          expect(answer).toMatch(/^Your call to record was not run: its arguments .*\. (Send|Write|Separate|Remove)/);
      }
      expect(providerPayloadProblems(messages)).toEqual(NO_PROBLEMS);
      total += cases.length;
    }
    expect(total).toBe(MEANING_CHANGES.length);
  }, 120_000);

  it("createAgent: every legitimate repair still runs, with exactly the meant arguments", async () => {
    for (const [declaredKeys, cases] of bySchema(LEGITIMATE_REPAIRS)) {
      const { runs } = await throughCreateAgent(cases, declaredKeys);
      const ran = new Map(runs.map((r) => [r.id, r.args]));
      expect(cases.map((c, i) => ran.get(`case-${i}`))).toEqual(cases.map((c) => c.args));
    }
  });

  it("createDeepAgent: 0 meaning-changing repairs and the legitimate ones run", async () => {
    const unkeyed = MEANING_CHANGES.filter((c) => c.declaredKeys === undefined);
    const { runs } = await throughCreateAgent(unkeyed, undefined, true);
    expect(meaningChanges(unkeyed, runs)).toEqual([]);
    const legit = LEGITIMATE_REPAIRS.filter((c) => c.declaredKeys === undefined);
    const ok = await throughCreateAgent(legit, undefined, true);
    expect(ok.runs).toHaveLength(legit.length);
  }, 120_000);

  it("refuses a valid call whose wire text holds a number JSON.parse rounded (OpenAI raw arguments)", async () => {
    const record = recordTool(["id", "amount"]);
    const raws = [
      '{"id": 9007199254740993, "amount": 1}',
      '{"id": 1, "amount": 98765432109876543210}',
      '{"id": 1, "amount": 1e400}',
    ];
    const turn = new AIMessage({
      content: "",
      tool_calls: raws.map((raw, i) => ({
        id: `raw-${i}`,
        name: "record",
        args: JSON.parse(raw),
        type: "tool_call" as const,
      })),
      additional_kwargs: {
        tool_calls: raws.map((raw, i) => ({
          id: `raw-${i}`,
          type: "function",
          function: { name: "record", arguments: raw },
        })),
      },
    });
    const agent = createAgent({
      model: new ScriptedChatModel({ turns: [turn, { text: "done" }] }),
      tools: [record.tool],
      middleware: [new ToolCallRepairMiddleware({ stopAt: 100 })],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("pay")] });
    expect(record.runs).toEqual([]);
    const answers = (messages as BaseMessage[]).filter(ToolMessage.isInstance).map((m) => String(m.content));
    expect(answers[0]).toContain("the number 9007199254740993, which JSON parsers read as 9007199254740992");
    expect(answers[1]).toContain("98765432109876543210");
    expect(answers[2]).toContain("read as Infinity");
  });

  it("does not echo a 5,000-character invented tool name, and keeps history sendable to providers", async () => {
    const record = recordTool(undefined);
    const name = `x${"y".repeat(4999)}`;
    const agent = createAgent({
      model: new ScriptedChatModel({
        turns: [{ toolCalls: [{ name, args: {} }], invalidToolCalls: [{ name, args: "{" }] }, { text: "done" }],
      }),
      tools: [record.tool],
      middleware: [new ToolCallRepairMiddleware()],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
    const history = messages as BaseMessage[];
    const answers = history.filter(ToolMessage.isInstance).map((m) => String(m.content));
    expect(answers).toHaveLength(2);
    for (const answer of answers) {
      expect(answer.length).toBeLessThan(250);
      expect(answer).toContain("(5,000 characters)");
    }
    expect(JSON.stringify(history).includes("y".repeat(200))).toBe(false);
    assertToolCallPairing(history);
    expect(providerPayloadProblems(history)).toEqual(NO_PROBLEMS);
  });
});
