import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ContextOverflowGuardMiddleware } from "../../../src/guards/overflow/ContextOverflowGuardMiddleware.js";
import { RequestMeter } from "../../../src/guards/overflow/estimate.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";
import { ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { seenTokens } from "./helpers.js";

// A provider whose tokenizer counts `ratio` of the guard's estimate reports so in usage_metadata;
// the guard calibrates from it, both ways, within [0.7, 4].

const WINDOW = 8000;
const RESERVE = 1000;
const LIMIT = WINDOW - RESERVE;

function page(n: number): string {
  return Array.from(
    { length: 60 },
    (_, i) =>
      `Section ${n}.${i} of the report describes how the migration moved the ${i % 2 ? "orders" : "invoices"} table.`,
  ).join("\n");
}

const fetchPage = tool(async ({ n }: { n: number }) => page(n), {
  name: "fetch_page",
  description: "Fetch one page of the report",
  schema: z.object({ n: z.number() }),
});

async function run(ratio: number, pages = 16) {
  const guard = new ContextOverflowGuardMiddleware({
    maxInputTokens: WINDOW,
    reserveTokens: RESERVE,
    store: new MemoryOffloadStore(),
  });
  const meter = new RequestMeter();
  const tools = [fetchPage, ...guard.tools];
  // Each answer reports the request's input as the provider counts it: `ratio` of the estimate.
  const turn =
    (n: number): ScriptedTurn =>
    (messages: BaseMessage[]) => ({
      ...(n < pages ? { toolCalls: [{ name: "fetch_page", args: { n } }] } : { text: "done" }),
      usage: { input_tokens: Math.round(ratio * seenTokens(meter, messages, tools)), output_tokens: 10 },
    });
  const model = new ScriptedChatModel({ turns: Array.from({ length: pages + 1 }, (_, n) => turn(n)) });
  const agent = createAgent({ model, tools: [fetchPage], middleware: [guard], systemPrompt: "You read reports." });
  await agent.invoke({ messages: [new HumanMessage("read every page")] }, { recursionLimit: 1000 });
  return model.seen.map((seen) => seenTokens(meter, seen, tools));
}

describe("calibration from usage_metadata, through createAgent", () => {
  it("a provider that counts less than the estimate gets the room back: requests estimated over the limit go out whole while they fit its count", async () => {
    const sizes = await run(0.75);
    expect(Math.max(...sizes)).toBeGreaterThan(LIMIT);
    for (const size of sizes) expect(size * 0.75).toBeLessThanOrEqual(LIMIT);
  });

  it("a provider that counts more gets a stricter limit: every request fits its count", async () => {
    const sizes = await run(1.5);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(LIMIT / 1.5 + 50);
    // The first request is measured before any answer reported a count.
    for (const size of sizes.slice(1)) expect(size * 1.5).toBeLessThanOrEqual(LIMIT);
  });

  it("a count far below the estimate is not trusted beyond 0.7", async () => {
    const sizes = await run(0.3, 24);
    expect(Math.max(...sizes)).toBeGreaterThan(LIMIT);
    for (const size of sizes) expect(size * 0.7).toBeLessThanOrEqual(LIMIT);
  });
});
