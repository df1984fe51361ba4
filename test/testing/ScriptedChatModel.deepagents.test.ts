import { describe, expect, it } from "vitest";
import { createDeepAgent } from "deepagents";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { ScriptedChatModel, assertToolCallPairing } from "../../src/testing/index.js";

describe("ScriptedChatModel inside createDeepAgent", () => {
  it("writes then reads a file through deepagents' own tools, streamed", async () => {
    const model = new ScriptedChatModel({
      turns: [
        { toolCalls: [{ name: "write_file", args: { file_path: "/notes.txt", content: "alpha\nbeta" } }] },
        { toolCalls: [{ name: "read_file", args: { file_path: "/notes.txt" } }] },
        (messages) => ({ text: `read ${messages.at(-1)!.text.includes("beta") ? "beta" : "nothing"}` }),
      ],
    });
    const agent = createDeepAgent({ model });

    let last: { messages: BaseMessage[]; files?: Record<string, unknown> } | undefined;
    for await (const state of await agent.stream(
      { messages: [new HumanMessage("take notes")] },
      { streamMode: "values" },
    )) {
      last = state as typeof last;
    }

    const messages = last!.messages;
    const toolTexts = messages.filter((m) => m.type === "tool").map((m) => m.text);
    expect(toolTexts[0]).toContain("/notes.txt");
    expect(toolTexts[1]).toContain("alpha\nbeta");
    expect(messages.at(-1)!.text).toBe("read beta");
    expect(Object.keys(last!.files ?? {})).toContain("/notes.txt");
    expect(model.callCount).toBe(3);
    expect(model.toolBindings[0]).toEqual(expect.arrayContaining(["write_file", "read_file", "task"]));
    assertToolCallPairing(messages);
  });

  it("streams message chunks in 'messages' mode", async () => {
    const model = new ScriptedChatModel({ turns: [{ text: "hello from the script" }] });
    const agent = createDeepAgent({ model });
    const texts: string[] = [];
    for await (const [chunk] of await agent.stream(
      { messages: [new HumanMessage("hi")] },
      { streamMode: "messages" },
    )) {
      texts.push((chunk as BaseMessage).text);
    }
    expect(texts).toEqual(["hello from the script"]);
  });

  it("serves deepagents' summarization call from the script", async () => {
    const model = new ScriptedChatModel({
      turns: [(messages) => ({ text: `SUMMARY of a ${messages.length}-message prompt` }), { text: "final" }],
    });
    const agent = createDeepAgent({ model });
    // About 200k tokens of history: over deepagents' fallback trigger of 170k tokens.
    const filler = "word ".repeat(20_000);
    const history: BaseMessage[] = [];
    for (let i = 0; i < 8; i++) history.push(new HumanMessage(`q${i} ${filler}`), new AIMessage(`a${i}`));
    history.push(new HumanMessage("now"));

    const result = await agent.invoke({ messages: history });

    expect(model.callCount).toBe(2);
    expect(model.seen[0]).toHaveLength(1);
    expect(model.seen[0]![0]!.text).toContain("summarizer");
    expect(model.seen[1]!.length).toBeLessThan(history.length);
    expect(model.seen[1]!.some((m) => m.text.includes("SUMMARY of a 1-message prompt"))).toBe(true);
    expect(result.messages.at(-1)!.text).toBe("final");
  });
});
