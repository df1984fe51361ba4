import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { providerStrategy } from "langchain";
import { z } from "zod";
import { reviewedCallsDecider } from "../../../src/guards/repair/decideReviewedCalls.js";
import {
  REVIEW_KEY,
  reviewTurn,
  UNNAMED_CALL,
  type CallReview,
  type ToolSpec,
} from "../../../src/guards/repair/reviewTurn.js";
import { structuredOutputTools } from "../../../src/guards/repair/structuredOutput.js";

const tools: ReadonlyMap<string, ToolSpec> = new Map([
  ["read_file", { name: "read_file", schema: z.object({ path: z.string(), limit: z.number().optional() }) }],
  ["ls", { name: "ls", schema: z.object({ path: z.string() }) }],
]);
const fallback = (i: number) => `fallback-${i}`;

describe("reviewTurn", () => {
  it("does nothing for a turn of well-formed calls to known tools", async () => {
    expect(await reviewTurn([{ id: "a", name: "ls", args: { path: "." } }], [], tools, fallback)).toBeUndefined();
  });

  it("turns a safely repairable invalid call into a regular call", async () => {
    const review = await reviewTurn([], [{ id: "a", name: "ls", args: "{'path': 'x'" }], tools, fallback);
    expect(review?.toolCalls).toEqual([{ id: "a", name: "ls", args: { path: "x" } }]);
    expect(review?.reviews).toEqual([
      { id: "a", name: "ls", verdict: "repaired", repairs: ["single_quotes", "missing_closing_brackets"] },
    ]);
  });

  it("refuses a missing closing brace when the schema declares a key the call does not have: it may have been cut", async () => {
    const review = await reviewTurn([], [{ id: "a", name: "read_file", args: "{'path': 'x'" }], tools, fallback);
    expect(review?.toolCalls).toEqual([{ id: "a", name: "read_file", args: {} }]);
    expect(review?.reviews[0]).toMatchObject({
      verdict: "rejected",
      problem: "unclosed",
      text: expect.stringContaining('arguments after "path" may have been cut off'),
    });
  });

  it("re-reviews a parsed call whose wire text holds a number JSON.parse rounded", async () => {
    const raw = new Map([["a", '{"path":"x","limit":9007199254740993}']]);
    const review = await reviewTurn(
      [{ id: "a", name: "read_file", args: { path: "x", limit: 9007199254740992 } }],
      [],
      tools,
      fallback,
      raw,
    );
    expect(review?.toolCalls).toEqual([{ id: "a", name: "read_file", args: {} }]);
    expect(review?.reviews[0]).toMatchObject({
      verdict: "rejected",
      problem: "imprecise_number",
      text: expect.stringContaining("JSON parsers read as 9007199254740992"),
    });
  });

  it("does not echo an invented 5,000-character tool name, nor keep it in history", async () => {
    const name = `read_${"x".repeat(5000)}`;
    const review = await reviewTurn([{ id: "a", name, args: {} }], [{ id: "b", name, args: "{" }], tools, fallback);
    expect(review?.toolCalls.map((c) => c.name)).toEqual([UNNAMED_CALL, UNNAMED_CALL]);
    for (const verdict of review!.reviews) {
      expect(verdict).toMatchObject({ verdict: "unknown_tool", name: UNNAMED_CALL });
      const text = (verdict as { text: string }).text;
      expect(text.length).toBeLessThan(250);
      expect(text).toContain("(5,005 characters)");
    }
  });

  it("rejects a meaning-changing repair and keeps the call with empty arguments", async () => {
    const review = await reviewTurn(
      [],
      [{ id: "a", name: "read_file", args: '{"path":"x","limit":10' }],
      tools,
      fallback,
    );
    expect(review?.toolCalls).toEqual([{ id: "a", name: "read_file", args: {} }]);
    expect(review?.reviews[0]).toMatchObject({ verdict: "rejected", problem: "cut_off" });
  });

  it("rejects a repair that does not match the tool's schema", async () => {
    const review = await reviewTurn([], [{ id: "a", name: "read_file", args: "{path: 5}" }], tools, fallback);
    expect(review?.reviews[0]).toMatchObject({ verdict: "rejected", problem: "schema_mismatch" });
    expect((review!.reviews[0] as { text: string }).text).toMatch(/path: .*expected string/);
  });

  it("flags calls to tools that do not exist, valid or not, with the closest names", async () => {
    const review = await reviewTurn(
      [{ id: "a", name: "read_fil", args: { path: "x" } }],
      [{ id: "b", name: "lst", args: "{" }],
      tools,
      fallback,
    );
    expect(review?.reviews.map((r) => [r.id, r.verdict])).toEqual([
      ["a", "unknown_tool"],
      ["b", "unknown_tool"],
    ]);
    expect((review!.reviews[0] as { closest: string[] }).closest[0]).toBe("read_file");
    expect((review!.reviews[1] as { closest: string[] }).closest[0]).toBe("ls");
  });

  it("never flags the response format's structured-output tools; flags any other extract-* and renames it so createAgent routes it", async () => {
    const strategy = structuredOutputTools([{ tool: { function: { name: "Answer" } } }]);
    const rawSchema = structuredOutputTools(z.object({ answer: z.string() }));
    const titled = structuredOutputTools({ title: "Answer", type: "object", properties: {} });
    const provider = structuredOutputTools(providerStrategy(z.object({ answer: z.string() })));
    expect(
      await reviewTurn([{ id: "a", name: "extract-7", args: {} }], [], tools, fallback, new Map(), provider),
    ).toMatchObject({ reviews: [{ verdict: "unknown_tool" }] });
    expect(
      await reviewTurn([{ id: "a", name: "Answer", args: {} }], [], tools, fallback, new Map(), strategy),
    ).toBeUndefined();
    expect(
      await reviewTurn([{ id: "a", name: "extract-7", args: {} }], [], tools, fallback, new Map(), rawSchema),
    ).toBeUndefined();
    expect(
      await reviewTurn([{ id: "a", name: "Answer", args: {} }], [], tools, fallback, new Map(), titled),
    ).toBeUndefined();
    for (const known of [
      strategy,
      rawSchema,
      titled,
      structuredOutputTools(undefined),
      structuredOutputTools({ __responseFormatUndefined: true }),
    ]) {
      const review = await reviewTurn(
        [{ id: "a", name: "extract-user_info", args: {} }],
        [],
        tools,
        fallback,
        new Map(),
        known,
      );
      expect(review?.toolCalls[0]).toMatchObject({ id: "a", name: UNNAMED_CALL });
      expect(review?.reviews[0]).toMatchObject({
        id: "a",
        verdict: "unknown_tool",
        text: expect.stringMatching(/^Tool "extract-user_info" does not exist/),
      });
    }
  });

  it("gives a nameless, id-less invalid call a name and id providers accept", async () => {
    const review = await reviewTurn([], [{ args: "{}" }], tools, fallback);
    expect(review?.toolCalls[0]).toMatchObject({ id: "fallback-0", name: UNNAMED_CALL });
    expect(review?.reviews[0]).toMatchObject({
      verdict: "unknown_tool",
      text: expect.stringMatching(/^Your tool call names no tool/),
    });
  });

  it("re-reviews a parsed call whose wire text was cut off (streaming partial-JSON parse)", async () => {
    const raw = new Map([["a", '{"path":"/etc/pas']]);
    const review = await reviewTurn(
      [{ id: "a", name: "read_file", args: { path: "/etc/pas" } }],
      [],
      tools,
      fallback,
      raw,
    );
    expect(review?.toolCalls).toEqual([{ id: "a", name: "read_file", args: {} }]);
    expect(review?.reviews[0]).toMatchObject({ verdict: "rejected", problem: "cut_off" });
  });

  it("re-reviews a parsed call whose wire text repeats a key (JSON.parse kept the last one)", async () => {
    const raw = new Map([["a", '{"path":"safe.md","path":"/etc/passwd"}']]);
    const review = await reviewTurn(
      [{ id: "a", name: "read_file", args: { path: "/etc/passwd" } }],
      [],
      tools,
      fallback,
      raw,
    );
    expect(review?.toolCalls).toEqual([{ id: "a", name: "read_file", args: {} }]);
    expect(review?.reviews[0]).toMatchObject({ verdict: "rejected", problem: "duplicate_key" });
  });

  it("leaves a parsed call alone when its wire text is strict JSON or empty", async () => {
    const raw = new Map([
      ["a", '{"path":"x"}'],
      ["b", ""],
    ]);
    const calls = [
      { id: "a", name: "read_file", args: { path: "x" } },
      { id: "b", name: "ls", args: {} },
    ];
    expect(await reviewTurn(calls, [], tools, fallback, raw)).toBeUndefined();
  });
});

function reviewed(id: string, reviews: CallReview[], calls: Array<{ id: string; name: string }>) {
  return new AIMessage({
    id,
    content: "",
    tool_calls: calls.map((c) => ({ ...c, args: {}, type: "tool_call" as const })),
    response_metadata: { [REVIEW_KEY]: reviews },
  });
}
const phantom = (id: string): CallReview => ({
  id,
  name: "nope",
  verdict: "unknown_tool",
  closest: ["ls"],
  text: `no ${id}`,
});

describe("reviewedCallsDecider", () => {
  it("answers phantom and rejected calls, warns on repairs, allows the rest", () => {
    const ai = reviewed(
      "m1",
      [phantom("a"), { id: "b", name: "ls", verdict: "repaired", repairs: ["single_quotes"] }],
      [
        { id: "a", name: "nope" },
        { id: "b", name: "ls" },
        { id: "c", name: "ls" },
      ],
    );
    const decisions = reviewedCallsDecider({ stopAt: 3 })(
      [new HumanMessage("go"), ai],
      [
        { id: "a", name: "nope", args: {} },
        { id: "b", name: "ls", args: {} },
        { id: "c", name: "ls", args: {} },
      ],
    );
    expect(decisions.map((d) => d.decision.action)).toEqual(["directive", "warn", "allow"]);
    expect(decisions[0]!.decision).toMatchObject({ reason: "unknown_tool", message: "no a" });
  });

  it("stops at the stopAt-th unusable call since the last user message, counted from the history", () => {
    const history = [
      new HumanMessage("first task"),
      reviewed("m0", [phantom("x")], [{ id: "x", name: "nope" }]),
      new ToolMessage({ tool_call_id: "x", content: "no x" }),
      new HumanMessage("second task"),
      reviewed("m1", [phantom("a")], [{ id: "a", name: "nope" }]),
      new ToolMessage({ tool_call_id: "a", content: "no a" }),
    ];
    const next = reviewed(
      "m2",
      [phantom("b"), phantom("c")],
      [
        { id: "b", name: "nope" },
        { id: "c", name: "nope" },
      ],
    );
    const pending = [
      { id: "b", name: "nope", args: {} },
      { id: "c", name: "nope", args: {} },
    ];
    const decisions = reviewedCallsDecider({ stopAt: 3 })([...history, next], pending);
    expect(decisions.map((d) => d.decision.action)).toEqual(["directive", "stop"]);
    expect(reviewedCallsDecider({ stopAt: 4 })([...history, next], pending).map((d) => d.decision.action)).toEqual([
      "directive",
      "directive",
    ]);
  });

  it("allows everything on a message that was never reviewed", () => {
    const ai = new AIMessage({ content: "", tool_calls: [{ id: "a", name: "ls", args: {}, type: "tool_call" }] });
    expect(reviewedCallsDecider({ stopAt: 1 })([ai], [{ id: "a", name: "ls", args: {} }])[0]!.decision.action).toBe(
      "allow",
    );
  });
});
