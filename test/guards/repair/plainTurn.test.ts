import { AIMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isPlainTurn } from "../../../src/guards/repair/plainTurn.js";
import { rawArgumentsOf } from "../../../src/guards/repair/rawArguments.js";
import { REVIEW_KEY, reviewTurn } from "../../../src/guards/repair/reviewTurn.js";
import { structuredOutputTools } from "../../../src/guards/repair/structuredOutput.js";
import { toolSpecs } from "../../../src/guards/repair/toolSpecs.js";
import { ToolCallRepairMiddleware } from "../../../src/guards/repair/ToolCallRepairMiddleware.js";

// The repair review's early exit (plainTurn.ts) must never change an answer: whenever it says a
// turn needs nothing, the full review finds nothing either; and through the middleware, the
// answer with the exit is the full review's answer, on turns built to sit beside the exit.

const tools = [
  { name: "ls", schema: z.object({ path: z.string() }) },
  { name: "read_file", schema: z.object({ path: z.string(), limit: z.number().optional() }) },
  {
    type: "function",
    function: {
      name: "search",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    },
  },
];
const specs = toolSpecs(tools);
/** A response format whose tool is not among `tools`: its calls are known, but only to the full review. */
const responseFormat = { tool: { type: "function", function: { name: "answer", parameters: { type: "object" } } } };

const knownNames = ["ls", "read_file", "search"];
const nearMisses = ["LS", "read-file", "readFile", "read_file ", " ls", "read_fil", "searchh", "", "answer"];
const nearNames = ["extract-1", "extract-user_info", "unnamed_tool_call", "l s", "ls\n"];
const callName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...knownNames) },
  { weight: 2, arbitrary: fc.constantFrom(...nearMisses, ...nearNames) },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
);

const callArgs: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ path: fc.string() }),
  fc.record({ path: fc.string(), limit: fc.integer() }),
  fc.record({ q: fc.string() }),
  // Arguments the tool's schema refuses.
  fc.record({ path: fc.integer() }),
  fc.record({ limit: fc.constantFrom(9007199254740992, 1e21, 0.1, -0, 5e-324) }),
  fc.record({ limit: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })) as fc.Arbitrary<Record<string, unknown>>,
  fc.constant({}),
);

/** The wire text a provider may have sent for `args`: as JSON.stringify prints them, or text near it. */
const wireFor = (args: Record<string, unknown>): fc.Arbitrary<string | undefined> => {
  const printed = JSON.stringify(args);
  return fc.oneof(
    fc.constant(undefined),
    fc.constant(printed),
    fc.constant(printed),
    fc.constant(JSON.stringify(args, null, 1)),
    fc.constant(""),
    fc.constant("  "),
    fc.constant(printed.slice(0, -1)),
    fc.constant(printed.replace(/^\{/, '{"path":"a",')),
    fc.constant(printed.replace(/9007199254740992/g, "9007199254740993")),
    fc.constant('{"path":"a","path":"b"}'),
    fc.constant('{"limit":9007199254740993}'),
    fc.constant('{"limit":1e400}'),
    fc.constant('{"path":"a"} '),
    fc.string({ maxLength: 20 }),
  );
};

const call = fc
  .record({ name: callName, args: callArgs })
  .chain(({ name, args }) => wireFor(args).map((wire) => ({ name, args, wire })));

interface InvalidCall {
  id: string | undefined;
  name: string | undefined;
  args: string;
}
const invalidCall: fc.Arbitrary<InvalidCall> = fc.record({
  id: fc.option(fc.constantFrom("i0", "i1", ""), { nil: undefined }),
  name: fc.option(callName, { nil: undefined }),
  args: fc.oneof(fc.constantFrom('{"path":"a"', "{'path': 'x'}", '{"q":"x"}', "", "[1]"), fc.string({ maxLength: 20 })),
});

type Shape = "none" | "openai" | "anthropicStream" | "anthropicBlocks";
const turn = fc.record({
  calls: fc.array(call, { maxLength: 3 }),
  invalid: fc.oneof(
    { weight: 3, arbitrary: fc.constant<InvalidCall[]>([]) },
    { weight: 1, arbitrary: fc.array(invalidCall, { maxLength: 2 }) },
  ),
  shape: fc.constantFrom<Shape>("none", "openai", "anthropicStream", "anthropicBlocks"),
  chunk: fc.integer({ min: 1, max: 8 }),
});

type Turn = typeof turn extends fc.Arbitrary<infer T> ? T : never;

/** The model's message for a generated turn, carrying the wire text in the provider's place for it. */
function messageOf({ calls, invalid, shape, chunk }: Turn): AIMessage {
  const toolCalls = calls.map((c, i) => ({ id: `c${i}`, name: c.name, args: c.args, type: "tool_call" as const }));
  const invalidToolCalls = invalid.map((c) => ({ ...c, type: "invalid_tool_call" as const, error: "bad" }));
  const fields = { id: "m", tool_calls: toolCalls, invalid_tool_calls: invalidToolCalls };
  if (shape === "openai") {
    const wire = calls.flatMap((c, i) =>
      c.wire === undefined
        ? []
        : [{ id: `c${i}`, type: "function" as const, function: { name: c.name, arguments: c.wire } }],
    );
    return new AIMessage({ ...fields, content: "", additional_kwargs: { tool_calls: wire } });
  }
  if (shape === "none") return new AIMessage({ ...fields, content: "" });
  const blocks: Record<string, unknown>[] = [{ type: "text", text: "working" }];
  calls.forEach((c, i) => {
    if (shape === "anthropicBlocks" || c.wire === undefined) {
      blocks.push({ type: "tool_use", id: `c${i}`, name: c.name, input: c.args, index: i + 1 });
      return;
    }
    blocks.push({ type: "tool_use", id: `c${i}`, name: c.name, input: "", index: i + 1 });
    for (let at = 0; at < c.wire.length; at += chunk)
      blocks.push({ type: "input_json_delta", input: c.wire.slice(at, at + chunk), index: i + 1 });
  });
  return new AIMessage({ ...fields, content: blocks as never });
}

/** The full review of a message, as the reviewer runs it when the exit does not apply. */
function fullReview(message: AIMessage) {
  return reviewTurn(
    message.tool_calls ?? [],
    message.invalid_tool_calls ?? [],
    specs,
    (index) => `${message.id ?? "call"}_invalid_${index}`,
    rawArgumentsOf(message),
    structuredOutputTools(responseFormat),
  );
}

describe("isPlainTurn, the repair review's early exit", () => {
  it("says a turn needs nothing only when the full review finds nothing", async () => {
    await fc.assert(
      fc.asyncProperty(turn, async (generated) => {
        const message = messageOf(generated);
        if (generated.invalid.length > 0 || !isPlainTurn(message.tool_calls ?? [], specs, message)) return;
        expect(await fullReview(message)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it("takes the common turns: known tools, arguments sent as JSON.stringify prints them or not at all", () => {
    const common = fc.record({
      calls: fc.array(
        fc.record({
          name: fc.constantFrom(...knownNames),
          args: callArgs,
          wire: fc.constant<string | undefined>(undefined),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      invalid: fc.constant<InvalidCall[]>([]),
      shape: fc.constantFrom<Shape>("none", "openai", "anthropicStream", "anthropicBlocks"),
      chunk: fc.integer({ min: 1, max: 8 }),
      printed: fc.boolean(),
    });
    fc.assert(
      fc.property(common, ({ printed, ...generated }) => {
        const calls = generated.calls.map((c) => ({ ...c, wire: printed ? JSON.stringify(c.args) : undefined }));
        const message = messageOf({ ...generated, calls });
        expect(isPlainTurn(message.tool_calls ?? [], specs, message)).toBe(true);
      }),
    );
  });

  it("leaves to the full review a call it cannot vouch for", () => {
    const message = (name: string, wire?: string) =>
      messageOf({ calls: [{ name, args: { path: "a" }, wire }], invalid: [], shape: "openai", chunk: 4 });
    const plain = (m: AIMessage) => isPlainTurn(m.tool_calls ?? [], specs, m);
    expect(plain(message("ls", '{"path":"a"}'))).toBe(true);
    expect(plain(message("LS", '{"path":"a"}'))).toBe(false);
    expect(plain(message("answer"))).toBe(false);
    expect(plain(message("ls", '{"path": "a"}'))).toBe(false);
    expect(plain(message("ls", '{"path":"a","path":"a"}'))).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const looping = new AIMessage({
      content: "",
      tool_calls: [{ id: "c0", name: "ls", args: cyclic, type: "tool_call" }],
      additional_kwargs: { tool_calls: [{ id: "c0", type: "function", function: { name: "ls", arguments: "{}" } }] },
    });
    expect(plain(looping)).toBe(false);
  });
});

describe("ToolCallRepairMiddleware with the early exit", () => {
  it("answers every turn as the full review does", async () => {
    const middleware = new ToolCallRepairMiddleware();
    await fc.assert(
      fc.asyncProperty(turn, async (generated) => {
        const expected = await fullReview(messageOf(generated));
        const message = messageOf(generated);
        const answer = (await middleware.wrapModelCall({ tools, responseFormat }, () => message)) as AIMessage;
        if (expected === undefined) {
          expect(answer).toBe(message);
          return;
        }
        expect(answer.tool_calls).toEqual(expected.toolCalls.map((c) => ({ ...c, type: "tool_call" })));
        expect(answer.invalid_tool_calls).toEqual([]);
        expect(answer.response_metadata[REVIEW_KEY]).toEqual(expected.reviews);
      }),
      { numRuns: 500 },
    );
  });
});
