import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createAgent, summarizationMiddleware, type AgentMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isSummary } from "../../../src/core/messages.js";
import { RequestMeter } from "../../../src/guards/overflow/estimate.js";
import { readContextRecord } from "../../../src/guards/overflow/record.js";
import { ContextOverflowGuardMiddleware } from "../../../src/guards/overflow/ContextOverflowGuardMiddleware.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";
import { recommendedGuards } from "../../../src/stack/recommendedGuards.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { stackMembers } from "../../helpers/stackMembers.js";
import { seenTokens } from "./helpers.js";

/**
 * LangChain's summarizationMiddleware compacts state in a beforeModel node, which runs before any
 * wrapModelCall: it summarises at its trigger, and the guard only shrinks what is still over the
 * window (here, a kept tail of large results). Listed before or after the guard, the same.
 */

function page(n: number): string {
  return Array.from({ length: 450 }, (_, i) => `page ${n} row ${i}: total=${(n * 101 + i * 13) % 9973}`).join("\n");
}

const fetchPage = tool(async ({ n }: { n: number }) => page(n), {
  name: "fetch_page",
  description: "Fetch one page",
  schema: z.object({ n: z.number() }),
});

const WINDOW = 8000;
const RESERVE = 1000;

function turns(pages: number): ScriptedTurn[] {
  return [
    ...Array.from({ length: pages }, (_, n) => ({ toolCalls: [{ name: "fetch_page", args: { n } }] })),
    { text: "done" },
  ];
}

describe.each(["summarization first", "guard first"])(
  "summarizationMiddleware with the context-overflow guard (%s)",
  (order) => {
    it("summaries compact the state, the guard keeps every request under the window, pairing holds", async () => {
      const summariser = new ScriptedChatModel({
        turns: Array.from({ length: 40 }, (_, i) => ({ text: `summary ${i}: pages read so far` })),
      });
      const summarization = summarizationMiddleware({
        model: summariser,
        trigger: { tokens: 5000 },
        keep: { messages: 6 },
      });
      const codes: string[] = [];
      const guard = new ContextOverflowGuardMiddleware({
        maxInputTokens: WINDOW,
        reserveTokens: RESERVE,
        store: new MemoryOffloadStore(),
        onSignal: (s) => codes.push(s.code),
      });
      const middleware: AgentMiddleware[] = order === "guard first" ? [guard, summarization] : [summarization, guard];
      const model = new ScriptedChatModel({ turns: turns(16) });
      const agent = createAgent({ model, tools: [fetchPage], middleware });
      const { messages } = await agent.invoke(
        { messages: [new HumanMessage("read sixteen pages")] },
        { recursionLimit: 500 },
      );

      expect(messages.at(-1)!.content).toBe("done");
      expect(summariser.callCount).toBeGreaterThan(0);
      const meter = new RequestMeter();
      let sawSummary = false;
      for (const seen of model.seen) {
        expect(seenTokens(meter, seen, [fetchPage, ...guard.tools])).toBeLessThanOrEqual(WINDOW - RESERVE);
        assertToolCallPairing(seen);
        sawSummary ||= seen.some(isSummary);
      }
      expect(sawSummary).toBe(true);
      // The kept tail alone (three pages of ~3,400 tokens) is over the window: the guard shrank it.
      // (Its records were on answers the summaries have since replaced; the signals remain.)
      expect(codes).toContain("request_shrunk");
      assertToolCallPairing(messages);
      expect(messages.filter(ToolMessage.isInstance).every((m) => String(m.content).startsWith("page "))).toBe(true);
    });
  },
);

describe("the recommended stack", () => {
  it("includes the guard: a long run of large results stays under the model's window, and the budget's read_stored_result reads what it left out", async () => {
    const guards = recommendedGuards({ contextOverflow: { maxInputTokens: WINDOW, reserveTokens: RESERVE } });
    expect(stackMembers(guards.agent).map((m) => m.name)).toContain("ContextOverflowGuardMiddleware");
    const readBack: ScriptedTurn = (messages) => {
      // The first notice of what the guard left out names the key it is stored under.
      const key = /left out[^"]*"([A-Za-z0-9_-]+)"/.exec(messages.map((m) => String(m.content)).join("\n"))![1]!;
      return { toolCalls: [{ name: "read_stored_result", args: { key, offset: 0, length: 200 } }] };
    };
    const model = new ScriptedChatModel({ turns: [...turns(20).slice(0, 20), readBack, { text: "done" }] });
    const agent = createAgent({ model, tools: [fetchPage], middleware: guards.agent });
    const { messages } = await agent.invoke(
      { messages: [new HumanMessage("read twenty pages")] },
      { recursionLimit: 500 },
    );
    expect(messages.at(-1)!.content).toBe("done");
    const meter = new RequestMeter();
    const tools = [fetchPage, ...guards.agent.flatMap((m) => (m as { tools?: unknown[] }).tools ?? [])];
    for (const seen of model.seen) {
      expect(seenTokens(meter, seen, tools)).toBeLessThanOrEqual(WINDOW - RESERVE);
      assertToolCallPairing(seen);
    }
    assertToolCallPairing(messages);
    const answer = messages.filter(ToolMessage.isInstance).find((m) => m.name === "read_stored_result");
    // Older pages were left out whole, before the latest turn's result was touched: the first page comes back.
    expect(String(answer?.content)).toMatch(
      /^\[Characters 0 to 200 of \d+ stored under "[^"]+"\. Continue with offset 200\.\]\n[^]*\npage 0 row 0: total=0\n/,
    );
  });

  it("observe-only stack: the guard signals and shrinks nothing", async () => {
    const codes: string[] = [];
    const guards = recommendedGuards({
      observeOnly: true,
      onSignal: (s) => codes.push(s.code),
      contextOverflow: { maxInputTokens: WINDOW, reserveTokens: RESERVE },
    } as Parameters<typeof recommendedGuards>[0]);
    const model = new ScriptedChatModel({ turns: turns(6) });
    const agent = createAgent({ model, tools: [fetchPage], middleware: guards.agent });
    const { messages } = await agent.invoke(
      { messages: [new HumanMessage("read six pages")] },
      { recursionLimit: 500 },
    );
    expect(codes).toContain("over_window");
    expect(codes).not.toContain("request_shrunk");
    expect(messages.some((m: BaseMessage) => readContextRecord(m) !== undefined)).toBe(false);
  });
});
