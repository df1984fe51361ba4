import { describe, expect, it } from "vitest";
import { createAgent, type AgentMiddleware } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ProgressAwareLoopGuardMiddleware } from "../../src/guards/progress/ProgressAwareLoopGuardMiddleware.js";
import { LoopGuardMiddleware } from "../../src/guards/loop/LoopGuardMiddleware.js";
import { ToolResultBudgetMiddleware } from "../../src/guards/budget/ToolResultBudgetMiddleware.js";
import { BinaryReadGuardMiddleware } from "../../src/guards/binary/BinaryReadGuardMiddleware.js";
import { MemoryOffloadStore } from "../../src/offload/MemoryOffloadStore.js";
import { buildObservations } from "../../src/observe/store.js";
import { assertToolCallPairing, ScriptedChatModel } from "../../src/testing/index.js";
import { makePng } from "../guards/binary/fixtures.js";

/**
 * The recommended order: loop guards first, then the budget, then the binary guard.
 * The loop guards (afterModel) judge results from the history, where the budget left previews;
 * the preview's `response_metadata.harness_kit.original` carries the real result's fingerprint.
 */
const recommended = (): AgentMiddleware[] => [
  new LoopGuardMiddleware(),
  new ProgressAwareLoopGuardMiddleware(),
  new ToolResultBudgetMiddleware({ limit: 4000, store: new MemoryOffloadStore() }),
  new BinaryReadGuardMiddleware(),
];

const HEAD = Array.from({ length: 300 }, (_, i) => `header row ${i}`).join("\n");
const TAIL = Array.from({ length: 300 }, (_, i) => `footer row ${i}`).join("\n");

function report(middle: string): string {
  return `${HEAD}\n${middle.repeat(3000)}\n${TAIL}`;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const markOf = (message: ToolMessage): Record<string, any> =>
  (message.response_metadata as { harness_kit?: Record<string, unknown> }).harness_kit ?? {};

function toolMessages(messages: BaseMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
}

async function pollFourTimes(results: string[]) {
  let n = 0;
  const poll = tool(async () => results[Math.min(n++, results.length - 1)]!, {
    name: "get_report",
    description: "Reads the current report.",
    schema: z.object({ id: z.string() }),
  });
  const call = { name: "get_report", args: { id: "r1" } };
  const model = new ScriptedChatModel({
    turns: [
      { toolCalls: [call] },
      { toolCalls: [call] },
      { toolCalls: [call] },
      { toolCalls: [call] },
      { text: "done" },
    ],
  });
  const agent = createAgent({ model, tools: [poll], middleware: recommended() });
  const result = await agent.invoke({ messages: [new HumanMessage("watch the report")] });
  assertToolCallPairing(result.messages);
  return { messages: result.messages as BaseMessage[], executions: n };
}

describe("the budget next to the loop guards (recommended order)", () => {
  it("the loop guards see that identical oversized results are repeats, although each preview names its own key", async () => {
    const same = report("unchanged middle line\n");
    const { messages, executions } = await pollFourTimes([same]);
    const answers = toolMessages(messages);
    expect(String(answers[0]!.content)).toContain("[get_report returned");
    expect(String(answers[1]!.content)).toContain("[get_report returned");
    // Previews differ (each names its own stored key) ...
    expect(answers[0]!.content).not.toBe(answers[1]!.content);
    // ... yet the third call is refused as a repeat that brings nothing new.
    expect(markOf(answers[2]!)).toMatchObject({ guard: "ProgressAwareLoopGuardMiddleware", action: "directive" });
    expect(executions).toBe(2);
  });

  it("a change hidden in the omitted middle counts as progress, although the previews look alike", async () => {
    const { messages, executions } = await pollFourTimes([
      report("state A\n"),
      report("state B\n"),
      report("state C\n"),
      report("state D\n"),
    ]);
    const answers = toolMessages(messages);
    expect(executions).toBe(4);
    for (const answer of answers) expect(markOf(answer).guard).toBe("ToolResultBudgetMiddleware");
    // The part the model sees is the same head and tail each time.
    const visible = (text: string) =>
      text
        .split("\n")
        .filter((line) => /^(?:header|footer) row/.test(line))
        .join("\n");
    expect(visible(String(answers[0]!.content))).toBe(visible(String(answers[3]!.content)));
  });

  it("the recorded fingerprint is the one the observation store computes for the raw result", async () => {
    const raw = report("middle\n");
    const { messages } = await pollFourTimes([raw]);
    const [preview] = toolMessages(messages);
    const rawHistory = messages
      .slice(0, 3)
      .map((m) =>
        ToolMessage.isInstance(m) ? new ToolMessage({ content: raw, tool_call_id: m.tool_call_id, name: m.name }) : m,
      );
    const [fromRaw] = await buildObservations(rawHistory);
    const [fromPreview] = await buildObservations(messages.slice(0, 3));
    expect(markOf(preview!).original.fingerprint).toBe(fromRaw!.resultFingerprint);
    expect(fromPreview!.resultFingerprint).toBe(fromRaw!.resultFingerprint);
    expect(fromPreview!.resultSize).toBe(raw.length);
  });

  it("the binary guard must sit after the budget: there it names the image; before it, the budget only drops the block", async () => {
    const screenshot = tool(
      async () => [{ type: "image", mimeType: "image/png", data: makePng().toString("base64").repeat(20) }],
      {
        name: "screenshot",
        description: "Takes a screenshot.",
        schema: z.object({}),
      },
    );
    const answerWith = async (middleware: AgentMiddleware[]) => {
      const model = new ScriptedChatModel({
        turns: [{ toolCalls: [{ name: "screenshot", args: {} }] }, { text: "done" }],
      });
      const result = await createAgent({ model, tools: [screenshot], middleware }).invoke({
        messages: [new HumanMessage("look")],
      });
      const content = toolMessages(result.messages)[0]!.content;
      return typeof content === "string"
        ? content
        : content.map((block) => ("text" in block ? block.text : block.type)).join("\n");
    };
    const budget = () => new ToolResultBudgetMiddleware({ limit: 4000 });
    expect(await answerWith([budget(), new BinaryReadGuardMiddleware()])).toContain("is a PNG image");
    expect(await answerWith([new BinaryReadGuardMiddleware(), budget()])).toContain(
      "[Removed a media block too large for this result",
    );
  });
});
