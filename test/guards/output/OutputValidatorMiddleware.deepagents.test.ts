import { describe, expect, it } from "vitest";
import { createDeepAgent } from "deepagents";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { OutputValidatorMiddleware } from "../../../src/guards/output/OutputValidatorMiddleware.js";
import type { Signal } from "../../../src/core/signals.js";
import { assertToolCallPairing, ScriptedChatModel } from "../../../src/testing/index.js";

const report = z.object({ rows: z.array(z.object({ id: z.number(), value: z.string() })) });
const bigValid = JSON.stringify({
  rows: Array.from({ length: 3000 }, (_, id) => ({ id, value: `row ${id} `.repeat(4) })),
});
const bigPage = `<!DOCTYPE html><html><body>${"<p>Service unavailable</p>".repeat(4000)}</body></html>`;

function answers(messages: BaseMessage[], name: string): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.name === name);
}

describe("OutputValidatorMiddleware inside createDeepAgent", () => {
  it("judges the raw output before the filesystem middleware evicts large results", async () => {
    const outputs = [bigPage, bigValid];
    const getReport = tool(async () => outputs.shift()!, {
      name: "get_report",
      description: "Report.",
      schema: z.object({}),
    });
    const signals: Signal[] = [];
    const model = new ScriptedChatModel({
      turns: [
        { toolCalls: [{ name: "get_report", args: {} }] },
        { toolCalls: [{ name: "get_report", args: {} }] },
        { text: "done" },
      ],
    });
    const agent = createDeepAgent({
      model,
      tools: [getReport],
      middleware: [
        new OutputValidatorMiddleware({ tools: { get_report: { schema: report } }, onSignal: (s) => signals.push(s) }),
      ],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("report")] });
    assertToolCallPairing(messages);
    const [page, valid] = answers(messages, "get_report");
    expect(String(page!.content)).toMatch(/^ToolOutputInvalid: html_instead_of_json: expected JSON, got an HTML page/);
    // The valid 100 KB result passed the validator and was then offloaded by deepagents, as without it.
    expect(String(valid!.content)).toMatch(/large_tool_results/);
    expect(signals.map((s) => s.detail?.errorClass)).toEqual(["html_instead_of_json"]);
  });

  it("validates the ToolMessage inside write_file's Command and keeps the file update", async () => {
    const writeNote = { name: "write_file", args: { file_path: "/notes.md", content: "hello" } };
    const model = new ScriptedChatModel({
      turns: [{ toolCalls: [writeNote, { name: "ls", args: { path: "/" } }] }, { text: "done" }],
    });
    const validator = new OutputValidatorMiddleware({
      tools: { write_file: { contentType: "text", schema: z.string().startsWith("Updated") } },
    });
    const result = await createDeepAgent({ model, middleware: [validator] }).invoke({
      messages: [new HumanMessage("note")],
    });
    assertToolCallPairing(result.messages);
    expect(Object.keys(result.files ?? {})).toEqual(["/notes.md"]);
    expect(String(answers(result.messages, "write_file")[0]!.content)).toMatch(
      /^ToolOutputInvalid: schema_invalid: \(root\): /,
    );
    expect(answers(result.messages, "ls")[0]!.status).not.toBe("error");
  });

  it("refuses deepagents' write_file in safe mode", async () => {
    const getReport = tool(async () => "<html><body>502</body></html>", {
      name: "get_report",
      description: "Report.",
      schema: z.object({}),
    });
    const model = new ScriptedChatModel({
      turns: [
        { toolCalls: [{ name: "get_report", args: {} }] },
        { toolCalls: [{ name: "write_file", args: { file_path: "/r.md", content: "guess" } }] },
        { text: "done" },
      ],
    });
    const validator = new OutputValidatorMiddleware({
      tools: { get_report: { schema: report, onInvalid: "degrade" } },
      writeTools: ["write_file"],
    });
    const result = await createDeepAgent({ model, tools: [getReport], middleware: [validator] }).invoke({
      messages: [new HumanMessage("report")],
    });
    assertToolCallPairing(result.messages);
    expect(result.files ?? {}).toEqual({});
    expect(String(answers(result.messages, "write_file")[0]!.content)).toMatch(
      /^Not run \(output validator\): "write_file" changes things/,
    );
  });

  it("stops the main agent on an invalid output when the spec says so", async () => {
    const getReport = tool(async () => '{"rows": [{"id": 1, "value": "a"}, {"id": 2', {
      name: "get_report",
      description: "Report.",
      schema: z.object({}),
    });
    const model = new ScriptedChatModel({
      turns: [{ toolCalls: [{ name: "get_report", args: {} }] }, { text: "never" }],
    });
    const agent = createDeepAgent({
      model,
      tools: [getReport],
      middleware: [new OutputValidatorMiddleware({ tools: { get_report: { schema: report, stopRun: true } } })],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("report")] });
    assertToolCallPairing(messages);
    expect(model.callCount).toBe(1);
    expect(String(messages.at(-1)!.content)).toMatch(
      /^Run stopped by OutputValidatorMiddleware: invalid_tool_output — "get_report" returned invalid output \(ToolOutputInvalid: json_truncated/,
    );
  });
});
