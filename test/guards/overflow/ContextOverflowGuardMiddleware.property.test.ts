import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ESTIMATE_MAX_OVERCOUNT } from "../../../src/guards/overflow/assess.js";
import { RequestMeter } from "../../../src/guards/overflow/estimate.js";
import { readContextRecord } from "../../../src/guards/overflow/record.js";
import { ContextOverflowGuardMiddleware } from "../../../src/guards/overflow/ContextOverflowGuardMiddleware.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";
import { contentText } from "../../../src/observe/content.js";
import type { Signal } from "../../../src/core/signals.js";
import { findToolCallPairingViolation } from "../../../src/testing/assertToolCallPairing.js";

/**
 * The guard called directly on random histories (user turns, AI turns with parallel calls, results
 * of every size, CJK text, media blocks) and random windows: whatever it sends fits the limit and
 * keeps pairing, the system prompt and the latest user message; whatever it left out is in the
 * store; and it stops only when even the smallest request is proven over the window, else it
 * sends the smallest.
 */

const textArb = fc.oneof(
  fc.integer({ min: 0, max: 30_000 }).map((n) => "x".repeat(n)),
  fc.integer({ min: 0, max: 3000 }).map((n) => "結果".repeat(n)),
  fc.string({ maxLength: 200 }),
);

const turnArb = fc.oneof(
  fc.record({ kind: fc.constant("human" as const), text: textArb }),
  fc.record({
    kind: fc.constant("ai" as const),
    text: textArb,
    results: fc.array(fc.record({ text: textArb, image: fc.boolean(), arg: fc.integer({ min: 0, max: 2000 }) }), {
      maxLength: 3,
    }),
  }),
);

type Turn =
  | { kind: "human"; text: string }
  | { kind: "ai"; text: string; results: Array<{ text: string; image: boolean; arg: number }> };

function history(turns: Turn[]): BaseMessage[] {
  const messages: BaseMessage[] = [];
  let call = 0;
  turns.forEach((turn, t) => {
    if (turn.kind === "human") {
      messages.push(new HumanMessage({ id: `h${t}`, content: turn.text }));
      return;
    }
    const calls = turn.results.map((r) => ({
      id: `c${call++}`,
      name: "probe",
      args: { query: "q".repeat(r.arg) },
      type: "tool_call" as const,
    }));
    messages.push(new AIMessage({ id: `a${t}`, content: turn.text, tool_calls: calls }));
    turn.results.forEach((r, k) => {
      const content = r.image
        ? [
            { type: "text", text: r.text },
            { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
          ]
        : r.text;
      messages.push(
        new ToolMessage({ tool_call_id: calls[k]!.id, name: "probe", content: content as ToolMessage["content"] }),
      );
    });
  });
  return messages;
}

describe("ContextOverflowGuardMiddleware on random histories", () => {
  it("sends requests within the limit or, short of it, the smallest one; pairing and fixed messages intact, every left-out part stored", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnArb, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 2000, max: 60_000 }),
        async (turns, window) => {
          const messages = [new HumanMessage({ id: "first", content: "start" }), ...history(turns)];
          const store = new MemoryOffloadStore();
          const reserve = 500;
          const signals: Signal[] = [];
          const guard = new ContextOverflowGuardMiddleware({
            maxInputTokens: window,
            reserveTokens: reserve,
            store,
            onSignal: (s) => signals.push(s),
          });
          const system = new SystemMessage("You are careful.");
          let sent: BaseMessage[] | undefined;
          const response = await guard.wrapModelCall(
            { messages, systemMessage: system, tools: [], runtime: { configurable: { thread_id: "p" } } },
            async (request) => ((sent = request.messages), new AIMessage({ content: "ok" })),
          );
          const meter = new RequestMeter();
          const latestUser = [...messages].reverse().find(HumanMessage.isInstance)!;
          if (sent === undefined) {
            // A stop only on proof: even at the estimate's largest error, the smallest request is over the limit.
            expect(String((response as AIMessage).content)).toContain("context_overflow");
            const stop = signals.find((s) => s.code === "context_overflow")!;
            expect(stop.detail!.minimumTokens as number).toBeGreaterThan((window - reserve) * ESTIMATE_MAX_OVERCOUNT);
            return;
          }
          const sentTokens = meter.fixed(system, []) + meter.messages(sent);
          // Over the limit by the estimate, only the smallest request is sent, and only while it may fit.
          if (sentTokens > window - reserve) {
            expect(signals.find((s) => s.code === "request_shrunk")!.detail).toMatchObject({ smallest: true });
            expect(sentTokens).toBeLessThanOrEqual((window - reserve) * ESTIMATE_MAX_OVERCOUNT);
          }
          expect(findToolCallPairingViolation(sent)).toBeUndefined();
          expect(sent.filter((m) => m === latestUser)).toHaveLength(1);
          const record = readContextRecord(response);
          if (sent === messages) {
            expect(record).toBeUndefined();
            return;
          }
          expect(record).toBeDefined();
          for (const part of record!.removed) {
            expect(part.key).toBeDefined();
            const stored = (await store.get(part.key!, { toolName: "", toolCallId: "", threadId: "p", state: {} }))!;
            const original = messages[part.index]!;
            const full = contentText(original.content);
            if (part.kind === "tool" && part.action === "preview")
              expect(stored).toBe(full.replace(/\n\[image image\/png\]\niVBORw0KGgo=$/, ""));
            else if (part.kind === "tool" && part.action === "stub") expect(stored).toBe(full);
            else expect(stored).toContain(full);
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
