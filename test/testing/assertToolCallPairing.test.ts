import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import {
  ToolCallPairingError,
  assertToolCallPairing,
  type ToolCallPairingViolationKind,
} from "../../src/testing/index.js";
import { findToolCallPairingViolation } from "../../src/testing/assertToolCallPairing.js";

const ai = (...ids: string[]) =>
  new AIMessage({
    content: "",
    tool_calls: ids.map((id) => ({ id, name: "t", args: {}, type: "tool_call" as const })),
  });
const answer = (id: string) => new ToolMessage({ content: "ok", tool_call_id: id, name: "t" });
const human = (text = "hi") => new HumanMessage(text);

function caught(messages: unknown[]): ToolCallPairingError {
  try {
    assertToolCallPairing(messages);
  } catch (error) {
    if (error instanceof ToolCallPairingError) return error;
    throw error;
  }
  throw new Error("expected a ToolCallPairingError");
}

describe("assertToolCallPairing", () => {
  it("accepts well-paired histories, parallel calls answered in any order", () => {
    expect(() =>
      assertToolCallPairing([
        new SystemMessage("s"),
        human(),
        ai("a", "b"),
        answer("b"),
        answer("a"),
        ai(),
        human(),
        ai("c"),
        answer("c"),
      ]),
    ).not.toThrow();
    expect(findToolCallPairingViolation([])).toBeUndefined();
  });

  const cases: Array<{
    name: string;
    messages: unknown[];
    kind: ToolCallPairingViolationKind;
    index: number;
    id: string | undefined;
    words: string;
  }> = [
    {
      name: "a call without answer before the next AI message",
      messages: [human(), ai("a", "b"), answer("a"), ai()],
      kind: "unanswered",
      index: 1,
      id: "b",
      words: 'call "b" of message 1 has no ToolMessage before message 3 (ai)',
    },
    {
      name: "a call left unanswered by a human turn",
      messages: [ai("a"), human(), ai()],
      kind: "unanswered",
      index: 0,
      id: "a",
      words: "before message 1 (human)",
    },
    {
      name: "a call without answer at the end",
      messages: [human(), ai("a")],
      kind: "unanswered",
      index: 1,
      id: "a",
      words: "the messages end first",
    },
    {
      name: "a second answer to one call",
      messages: [ai("a"), answer("a"), answer("a")],
      kind: "duplicate-answer",
      index: 2,
      id: "a",
      words: "a second time",
    },
    {
      name: "an answer to an already closed call",
      messages: [ai("a"), answer("a"), ai("b"), answer("b"), answer("a")],
      kind: "duplicate-answer",
      index: 4,
      id: "a",
      words: "already answered",
    },
    {
      name: "an answer nobody asked for",
      messages: [human(), answer("x")],
      kind: "orphan-answer",
      index: 1,
      id: "x",
      words: 'call "x", which no open AI tool call made',
    },
    {
      name: "a tool message without id",
      messages: [ai("a"), { type: "tool", content: "?" }],
      kind: "orphan-answer",
      index: 1,
      id: undefined,
      words: "without a tool_call_id",
    },
    {
      name: "a human message between a call and its answer",
      messages: [ai("a"), human("oops"), answer("a")],
      kind: "interleaved",
      index: 1,
      id: "a",
      words: "message 1 (human) comes between",
    },
    {
      name: "one AI message repeating a call id",
      messages: [ai("a", "a"), answer("a"), answer("a")],
      kind: "duplicate-call-id",
      index: 0,
      id: "a",
      words: 'same id "a"',
    },
    {
      name: "a tool call without id",
      messages: [{ type: "ai", content: "", tool_calls: [{ name: "t", args: {} }] }],
      kind: "missing-call-id",
      index: 0,
      id: undefined,
      words: "tool call 0 of message 0 has no id",
    },
  ];

  for (const c of cases) {
    it(`reports ${c.name}`, () => {
      const error = caught(c.messages);
      expect(error.kind).toBe(c.kind);
      expect(error.index).toBe(c.index);
      expect(error.toolCallId).toBe(c.id);
      expect(error.message).toContain(c.words);
      expect(findToolCallPairingViolation(c.messages)).toMatchObject({ kind: c.kind, index: c.index });
    });
  }

  it("reports the first violation when there are several", () => {
    const error = caught([ai("a"), human(), answer("a"), answer("zzz")]);
    expect(error.kind).toBe("interleaved");
    expect(error.index).toBe(1);
  });

  it("reads plain dicts in LangChain and OpenAI form", () => {
    const dicts = [
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [{ id: "a", name: "t", args: {} }] },
      { role: "tool", tool_call_id: "a", content: "ok" },
      { type: "ai", content: "", tool_calls: [{ id: "b", name: "t", args: {} }] },
    ];
    expect(caught(dicts)).toMatchObject({ kind: "unanswered", index: 3, toolCallId: "b" });
    expect(() => assertToolCallPairing([...dicts, { type: "tool", tool_call_id: "b", content: "ok" }])).not.toThrow();
  });

  it("accepts pending calls at the end only when asked", () => {
    const paused = [human(), ai("a", "b"), answer("a")];
    expect(() => assertToolCallPairing(paused, { allowPendingAtEnd: true })).not.toThrow();
    expect(caught(paused).kind).toBe("unanswered");
  });

  // A history as a list of turns: each turn is an AI message with n calls, answered in a permuted order.
  const turnsArb = fc.array(
    fc.record({ calls: fc.integer({ min: 0, max: 3 }), humanAfter: fc.boolean(), seed: fc.integer() }),
    { minLength: 1, maxLength: 8 },
  );

  function build(turns: Array<{ calls: number; humanAfter: boolean; seed: number }>) {
    const messages: Array<AIMessage | ToolMessage | HumanMessage> = [human()];
    let next = 0;
    for (const turn of turns) {
      const ids = Array.from({ length: turn.calls }, () => `id-${next++}`);
      messages.push(ai(...ids));
      const shift = ids.length === 0 ? 0 : Math.abs(turn.seed) % ids.length;
      const rotated = [...ids.slice(shift), ...ids.slice(0, shift)];
      messages.push(...(turn.seed % 2 === 0 ? rotated : rotated.reverse()).map(answer));
      if (turn.humanAfter) messages.push(human());
    }
    return messages;
  }

  it("property: generated paired histories pass", () => {
    fc.assert(fc.property(turnsArb, (turns) => findToolCallPairingViolation(build(turns)) === undefined));
  });

  it("property: dropping or duplicating any ToolMessage is caught", () => {
    fc.assert(
      fc.property(turnsArb, fc.nat(), fc.boolean(), (turns, pick, duplicate) => {
        const messages = build(turns);
        const toolIndexes = messages.flatMap((m, i) => (ToolMessage.isInstance(m) ? [i] : []));
        fc.pre(toolIndexes.length > 0);
        const at = toolIndexes[pick % toolIndexes.length]!;
        const broken = duplicate
          ? [...messages.slice(0, at + 1), messages[at]!, ...messages.slice(at + 1)]
          : [...messages.slice(0, at), ...messages.slice(at + 1)];
        const violation = findToolCallPairingViolation(broken);
        const dropped = messages[at] as ToolMessage;
        return (
          violation !== undefined &&
          violation.kind === (duplicate ? "duplicate-answer" : "unanswered") &&
          violation.toolCallId === dropped.tool_call_id
        );
      }),
    );
  });

  it("property: a human message inserted before an answer is caught", () => {
    fc.assert(
      fc.property(turnsArb, fc.nat(), (turns, pick) => {
        const messages = build(turns);
        const toolIndexes = messages.flatMap((m, i) => (ToolMessage.isInstance(m) ? [i] : []));
        fc.pre(toolIndexes.length > 0);
        const at = toolIndexes[pick % toolIndexes.length]!;
        const broken = [...messages.slice(0, at), human("inserted"), ...messages.slice(at)];
        return findToolCallPairingViolation(broken)?.kind === "interleaved";
      }),
    );
  });
});
