import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { lastAiIndex, latestTurnIndex } from "../../src/core/messages.js";

const ai = () => new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "lookup", args: {} }] });
const tool = () => new ToolMessage({ content: "r", tool_call_id: "c1" });
const human = () => new HumanMessage("go");
const kinds = { ai, tool, human, dict: () => ({ role: "assistant", content: "" }) };

describe("lastAiIndex and latestTurnIndex", () => {
  it("find the last AI message, and the turn the history ends with past its answers", () => {
    const history = [human(), ai(), tool(), tool()];
    expect(lastAiIndex(history)).toBe(1);
    expect(latestTurnIndex(history)).toBe(1);
    // A user message after the turn: it is still the last AI message, but no longer the turn the history ends with.
    history.push(human());
    expect(lastAiIndex(history)).toBe(1);
    expect(latestTurnIndex(history)).toBe(-1);
    expect(lastAiIndex([human()])).toBe(-1);
    expect(latestTurnIndex([])).toBe(-1);
  });

  it("agree with a scan from the end, for any history (message instances and plain dicts)", () => {
    const kindNames = Object.keys(kinds) as (keyof typeof kinds)[];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...kindNames), { maxLength: 12 }), (names) => {
        const history = names.map((name) => kinds[name]());
        const isAi = (name: string) => name === "ai" || name === "dict";
        let last = names.length - 1;
        while (last >= 0 && !isAi(names[last]!)) last--;
        expect(lastAiIndex(history)).toBe(last);
        const pastAnswers = names.length - 1 - [...names].reverse().findIndex((name) => name !== "tool");
        const turn = names.every((name) => name === "tool") ? -1 : pastAnswers;
        expect(latestTurnIndex(history)).toBe(turn >= 0 && isAi(names[turn]!) ? turn : -1);
      }),
    );
  });
});
