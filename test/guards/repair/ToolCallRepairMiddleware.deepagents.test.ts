import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createDeepAgent } from "deepagents";
import { describe, expect, it } from "vitest";
import type { Signal } from "../../../src/core/signals.js";
import { ToolCallRepairMiddleware } from "../../../src/guards/repair/ToolCallRepairMiddleware.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { NO_PROBLEMS, providerPayloadProblems } from "./payloads.js";

const toolTexts = (messages: BaseMessage[]) => messages.filter(ToolMessage.isInstance).map((m) => String(m.content));

async function runDeep(turns: ScriptedTurn[], withMiddleware = true) {
  const signals: Signal[] = [];
  const middleware = withMiddleware ? [new ToolCallRepairMiddleware({ onSignal: (s) => signals.push(s) })] : [];
  const agent = createDeepAgent({ model: new ScriptedChatModel({ turns }), middleware });
  const result = await agent.invoke({ messages: [new HumanMessage("write the report")] });
  return {
    messages: result.messages as BaseMessage[],
    files: (result as { files?: Record<string, unknown> }).files ?? {},
    signals,
  };
}

const truncatedWrite: ScriptedTurn = {
  invalidToolCalls: [
    { name: "write_file", args: '{"file_path":"/report.md","content":"# Report\\n\\nRevenue grew by 1' },
  ],
};
const resend: ScriptedTurn = {
  toolCalls: [{ name: "write_file", args: { file_path: "/report.md", content: "# Report\n\nRevenue grew by 12%." } }],
};

describe("ToolCallRepairMiddleware inside createDeepAgent", () => {
  it("without it, a write_file cut off by the token limit ends the deep agent's run silently", async () => {
    const { messages, files } = await runDeep([truncatedWrite, resend, { text: "done" }], false);
    expect(messages.map((m) => m.type)).toEqual(["human", "ai"]);
    expect(files).toEqual({});
  });

  it("with it, the cut-off write is refused, the model resends, and the full file is written", async () => {
    const { messages, files, signals } = await runDeep([truncatedWrite, resend, { text: "done" }]);
    expect(toolTexts(messages)[0]).toMatch(/^Your call to write_file was not run: its arguments end inside a string/);
    expect(Object.keys(files)).toEqual(["/report.md"]);
    expect(JSON.stringify(files["/report.md"])).toContain("Revenue grew by 12%.");
    expect(signals.map((s) => s.reason)).toEqual(["unusable_arguments"]);
    assertToolCallPairing(messages);
    expect(providerPayloadProblems(messages)).toEqual(NO_PROBLEMS);
  });

  it("repairs a call to a deepagents tool and names the real tools for a phantom one", async () => {
    const { messages, files } = await runDeep([
      {
        invalidToolCalls: [{ name: "write_file", args: "{'file_path': '/a.md', 'content': 'alpha'}" }],
        toolCalls: [{ name: "writeFile", args: { file_path: "/b.md", content: "beta" } }],
      },
      { text: "done" },
    ]);
    expect(Object.keys(files)).toEqual(["/a.md"]);
    expect(toolTexts(messages)).toContainEqual(
      expect.stringMatching(/^Tool "writeFile" does not exist\. The closest available tools are write_file/),
    );
    assertToolCallPairing(messages);
  });

  it("checks deepagents tool arguments before they run", async () => {
    const { messages, files } = await runDeep([
      { toolCalls: [{ name: "write_file", args: { file_path: "/a.md" } }] },
      { text: "done" },
    ]);
    expect(files).toEqual({});
    expect(toolTexts(messages)[0]).toMatch(/^The arguments for write_file do not match its schema: content: /);
  });
});
