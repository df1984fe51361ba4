import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { emptyResultText } from "../../../src/core/resultTexts.js";
import { toolsThatAnswered } from "../../../src/guards/repair/answeredTools.js";

const TOOLS = ["think", "search", "write"];

/** The rule read from the whole history, as the guard read it before it kept anything. */
function answeredByScan(history: readonly BaseMessage[], tool: string): boolean {
  return history.some(
    (m) =>
      ToolMessage.isInstance(m) &&
      m.name === tool &&
      m.status !== "error" &&
      !(typeof m.content === "string"
        ? m.content === "" || m.content === emptyResultText(tool)
        : m.content.length === 0),
  );
}

const toolMessage = fc.record({
  name: fc.constantFrom(...TOOLS, undefined),
  content: fc.constantFrom("", "found 3 pages", "[]", "stand-in", "blocks", "no blocks"),
  error: fc.boolean(),
});

const step = fc.oneof(
  { weight: 5, arbitrary: toolMessage.map((m) => ({ kind: "tool" as const, ...m })) },
  { weight: 1, arbitrary: fc.constant({ kind: "human" as const }) },
  // A summary: the history keeps its last messages behind a new first one.
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 4 }).map((keep) => ({ kind: "summary" as const, keep })) },
  { weight: 2, arbitrary: fc.constant({ kind: "ask" as const }) },
);

function messageOf(m: { name: string | undefined; content: string; error: boolean }, i: number): BaseMessage {
  const name = m.name ?? "think";
  const content =
    m.content === "stand-in"
      ? emptyResultText(name)
      : m.content === "blocks"
        ? [{ type: "text" as const, text: "a block" }]
        : m.content === "no blocks"
          ? []
          : m.content;
  return new ToolMessage({ content, tool_call_id: `c${i}`, name: m.name, status: m.error ? "error" : "success" });
}

describe("toolsThatAnswered", () => {
  it("names the tools a scan of the whole history finds, asked at any point of a growing or summarised history", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        let history: BaseMessage[] = [new HumanMessage("go")];
        steps.forEach((s, i) => {
          if (s.kind === "tool") history = [...history, new AIMessage(`turn ${i}`), messageOf(s, i)];
          else if (s.kind === "human") history = [...history, new HumanMessage(`again ${i}`)];
          else if (s.kind === "summary")
            history = [new HumanMessage(`summary ${i}`), ...history.slice(history.length - s.keep)];
          else {
            const tools = toolsThatAnswered(history);
            for (const tool of TOOLS) expect(tools.has(tool)).toBe(answeredByScan(history, tool));
          }
        });
        const tools = toolsThatAnswered(history);
        for (const tool of TOOLS) expect(tools.has(tool)).toBe(answeredByScan(history, tool));
      }),
      { numRuns: 500 },
    );
  });

  it("reads only what came after the last question on a growing history", () => {
    const history: BaseMessage[] = [new HumanMessage("go")];
    for (let i = 0; i < 50; i++)
      history.push(new AIMessage(`turn ${i}`), new ToolMessage({ content: "", tool_call_id: `c${i}`, name: "think" }));
    expect(toolsThatAnswered(history).has("think")).toBe(false);
    const read: number[] = [];
    const watched = new Proxy(history, {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) read.push(Number(key));
        return Reflect.get(target, key, receiver);
      },
    });
    history.push(new AIMessage("turn 50"), new ToolMessage({ content: "found", tool_call_id: "c50", name: "search" }));
    expect(toolsThatAnswered(watched).has("search")).toBe(true);
    // The two new messages, the one before them where the last answer was kept, and the first.
    expect(Math.min(...read.filter((i) => i > 0))).toBeGreaterThanOrEqual(history.length - 3);
  });
});
