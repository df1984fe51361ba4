import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createAgent, type AgentMiddleware } from "langchain";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import {
  BinaryReadGuardMiddleware,
  LoopGuardMiddleware,
  MemoryOffloadStore,
  OutputValidatorMiddleware,
  ProgressAwareLoopGuardMiddleware,
  ToolCallRepairMiddleware,
  ToolResultBudgetMiddleware,
} from "../../src/index.js";
import { PathGuardMiddleware } from "../../src/node.js";
import { tmpdir } from "node:os";
import { ODD_TOOL_RESULTS as RESULTS } from "../helpers/toolResults.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";

/**
 * Contracts 1 and 2 (docs/architecture.md) under random agent behaviour: whatever the model calls (repeats,
 * parallel batches, unknown tools) and whatever the tools return (errors, exceptions, odd content
 * shapes), every run ends normally with every tool call answered exactly once.
 */

const callArb = fc.record({
  name: fc.constantFrom("alpha", "beta", "think", "ghost", "read_stored_result"),
  args: fc.oneof(
    fc.constant({}),
    fc.record({ k: fc.integer({ min: 0, max: 2 }) }),
    fc.record({ deep: fc.record({ list: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }) }) }),
  ),
});
const turnArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.array(callArb, { minLength: 1, maxLength: 4 }).map((calls): ScriptedTurn => ({ toolCalls: calls })),
  },
  { weight: 1, arbitrary: fc.constant<ScriptedTurn>({ text: "done" }) },
);

export const GUARD_STACKS: Record<string, () => AgentMiddleware[]> = {
  "loop guards (default)": () => [new LoopGuardMiddleware(), new ProgressAwareLoopGuardMiddleware()],
  "loop guards (directive, tight)": () => [
    new LoopGuardMiddleware({ warnAt: 1, stopAt: 2, exitBehavior: "directive" }),
    new ProgressAwareLoopGuardMiddleware({ stopAt: 1, exitBehavior: "directive" }),
  ],
  "budget + binary (tight) with loop guards": () => [
    new LoopGuardMiddleware(),
    new ProgressAwareLoopGuardMiddleware(),
    new ToolResultBudgetMiddleware({ limit: 1000, turnLimit: 2000, store: new MemoryOffloadStore() }),
    new BinaryReadGuardMiddleware(),
  ],
  "budget (tokens, no store) + binary allowing images": () => [
    new ToolResultBudgetMiddleware({ unit: "tokens", limit: 300 }),
    new BinaryReadGuardMiddleware({ allowedMediaTypes: ["image/*"] }),
  ],
  "tool-call repair (last) with loop guards": () => [
    new LoopGuardMiddleware(),
    new ProgressAwareLoopGuardMiddleware(),
    new ToolCallRepairMiddleware(),
  ],
  "path guard + repair": () => [
    new PathGuardMiddleware({ roots: [tmpdir()], tools: { alpha: true, beta: true } }),
    new ToolCallRepairMiddleware({ exitBehavior: "directive" }),
  ],
  "output validator (require-spec, degrade, envelope, kill switch)": () => [
    new OutputValidatorMiddleware({
      tools: { alpha: { contentType: "text", maxChars: 1000 } },
      unspecifiedTools: "require-spec",
      onInvalid: "degrade",
      writeTools: ["beta"],
      envelope: true,
      killSwitch: { window: 3, threshold: 0.5 },
    }),
  ],
  "output validator (JSON, stopRun) with loop guards": () => [
    new LoopGuardMiddleware(),
    new OutputValidatorMiddleware({ tools: { alpha: { stopRun: true }, beta: { contentType: "text", maxChars: 10 } } }),
  ],
};

describe("contracts 1 and 2 hold for random histories", () => {
  for (const [label, stack] of Object.entries(GUARD_STACKS)) {
    it(label, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(turnArb, { minLength: 1, maxLength: 12 }),
          fc.array(fc.nat({ max: RESULTS.length - 1 }), { minLength: 1, maxLength: 8 }),
          async (turns, picks) => {
            let n = 0;
            const behaviour = () => RESULTS[picks[n++ % picks.length]!]!();
            const tools = ["alpha", "beta", "think"].map((name) =>
              tool(async () => behaviour() as string, { name, description: name, schema: z.object({}).passthrough() }),
            );
            const agent = createAgent({ model: new ScriptedChatModel({ turns }), tools, middleware: stack() });
            const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 500 });
            assertToolCallPairing(result.messages);
            expect(result.messages.length).toBeGreaterThan(1);
          },
        ),
        { numRuns: 40 },
      );
    });
  }
});
