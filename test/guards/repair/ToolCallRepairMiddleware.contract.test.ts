import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import fc from "fast-check";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Signal } from "../../../src/core/signals.js";
import { LoopGuardMiddleware } from "../../../src/guards/loop/LoopGuardMiddleware.js";
import { ToolCallRepairMiddleware } from "../../../src/guards/repair/ToolCallRepairMiddleware.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { NO_PROBLEMS, providerPayloadProblems } from "./payloads.js";

/**
 * Contracts 1, 2 and 5 (docs/architecture.md) for ToolCallRepairMiddleware under random model behaviour:
 * valid calls, malformed argument text (cut-off JSON, noise, prose), tools that do not exist,
 * arguments that break the schema, tools that throw or return values JSON cannot hold. Every run
 * ends normally, every call is answered once in LangChain's history and in the OpenAI and
 * Anthropic payloads, and every answer the middleware writes comes with a signal.
 */

const RESULTS: Array<() => unknown> = [
  () => "ok",
  () => ({ n: 1n }),
  () => new Map([["a", 1]]),
  () => Buffer.alloc(300, 3),
  () => undefined,
  () => {
    throw new Error("tool crashed");
  },
];

const argsArb = fc.record(
  {
    path: fc.oneof(fc.string({ maxLength: 8 }), fc.integer()),
    limit: fc.option(fc.integer({ min: -2, max: 5 }), { nil: undefined }),
  },
  { requiredKeys: [] },
);
const rawArgsArb = fc.oneof(
  argsArb.chain((args) =>
    fc.nat().map((cut) => JSON.stringify(args).slice(0, 1 + (cut % JSON.stringify(args).length))),
  ),
  argsArb.map((args) => JSON.stringify(args).replaceAll('"', "'")),
  argsArb.map((args) => `Here: ${JSON.stringify(args)}`),
  fc.string({ maxLength: 30 }),
);
const nameArb = fc.constantFrom("read_file", "read_file", "stat", "readFile", "delete_everything", "");
const turnArb: fc.Arbitrary<ScriptedTurn> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      toolCalls: fc.array(fc.record({ name: nameArb.filter((n) => n !== ""), args: argsArb }), { maxLength: 3 }),
      invalidToolCalls: fc.array(fc.record({ name: nameArb, args: rawArgsArb }), { maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant<ScriptedTurn>({ text: "done" }) },
);

type Stack = (onSignal: (signal: Signal) => void) => Array<ToolCallRepairMiddleware | LoopGuardMiddleware>;

const STACKS: Record<string, Stack> = {
  "repair alone": (onSignal) => [new ToolCallRepairMiddleware({ onSignal })],
  "repair (directive only) after a loop guard": (onSignal) => [
    new LoopGuardMiddleware({ stopAt: 3 }),
    new ToolCallRepairMiddleware({ exitBehavior: "directive", onSignal }),
  ],
  "repair placed before a loop guard (not the recommended order)": (onSignal) => [
    new ToolCallRepairMiddleware({ onSignal }),
    new LoopGuardMiddleware({ warnAt: 1, stopAt: 2 }),
  ],
};

describe("ToolCallRepairMiddleware keeps the contracts under random behaviour", () => {
  for (const [label, stack] of Object.entries(STACKS)) {
    it(label, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(turnArb, { minLength: 1, maxLength: 6 }),
          fc.array(fc.nat({ max: RESULTS.length - 1 }), { minLength: 1, maxLength: 6 }),
          async (turns, picks) => {
            let n = 0;
            const schema = z.object({ path: z.string(), limit: z.number().int().min(0).optional() });
            const tools = ["read_file", "stat"].map((name) =>
              tool(async () => RESULTS[picks[n++ % picks.length]!]!() as string, { name, description: name, schema }),
            );
            const signals: Signal[] = [];
            const agent = createAgent({
              model: new ScriptedChatModel({ turns }),
              tools,
              middleware: stack((signal) => signals.push(signal)),
            });
            const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 200 });
            const messages = result.messages as BaseMessage[];
            assertToolCallPairing(messages);
            expect(providerPayloadProblems(messages)).toEqual(NO_PROBLEMS);
            for (const ai of messages.filter(AIMessage.isInstance)) expect(ai.invalid_tool_calls ?? []).toEqual([]);
            const ours = messages.filter(
              (m) =>
                ToolMessage.isInstance(m) &&
                (m.response_metadata as { harness_kit?: { guard?: string } }).harness_kit?.guard ===
                  "ToolCallRepairMiddleware",
            );
            const signalled = new Set(
              signals.filter((s) => s.guard === "ToolCallRepairMiddleware").map((s) => s.toolCallId),
            );
            const stopped = signals.some((s) => s.action === "stop");
            for (const message of ours)
              expect(signalled.has((message as ToolMessage).tool_call_id) || stopped).toBe(true);
          },
        ),
        { numRuns: 40 },
      );
    });
  }
});
