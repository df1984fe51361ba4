import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../../../src/core/errors.js";
import type { Signal } from "../../../src/core/signals.js";
import { RequestMeter } from "../../../src/guards/overflow/estimate.js";
import { readContextRecord } from "../../../src/guards/overflow/record.js";
import { ContextOverflowGuardMiddleware } from "../../../src/guards/overflow/ContextOverflowGuardMiddleware.js";
import type { OffloadStore } from "../../../src/offload/OffloadStore.js";
import { contentText } from "../../../src/observe/content.js";

function history(results: number, chars: number): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage("go")];
  for (let i = 0; i < results; i++) {
    messages.push(
      new AIMessage({
        id: `a${i}`,
        content: "",
        tool_calls: [{ id: `c${i}`, name: "probe", args: {}, type: "tool_call" }],
      }),
    );
    messages.push(new ToolMessage({ tool_call_id: `c${i}`, name: "probe", content: `${i} `.padEnd(chars, "z") }));
  }
  return messages;
}

describe("ContextOverflowGuardMiddleware options", () => {
  it("refuses bad options at construction with zod's message", () => {
    for (const bad of [
      { maxInputTokens: 0 },
      { shrinkTo: 1.5 },
      { previewTokens: 10 },
      { countTokens: 3 },
      { store: {} },
      { largeResultTokens: 2.5 },
    ]) {
      expect(() => new ContextOverflowGuardMiddleware(bad as never), JSON.stringify(bad)).toThrow(InvalidOptionsError);
    }
    expect(() => new ContextOverflowGuardMiddleware({ shrinkTo: 2 })).toThrow(/shrinkTo/);
  });

  it("registers read_stored_result unless told not to", () => {
    expect(new ContextOverflowGuardMiddleware().tools.map((t) => t.name)).toEqual(["read_stored_result"]);
    expect(new ContextOverflowGuardMiddleware({ retrievalTool: false }).tools).toEqual([]);
  });
});

describe("a store that fails", () => {
  it("still gets the request under the window, says plainly what was not kept, and signals nothing worse than a shrink", async () => {
    const failing: OffloadStore = {
      put: async () => Promise.reject(new Error("disk full")),
      get: async () => undefined,
    };
    const signals: Signal[] = [];
    const guard = new ContextOverflowGuardMiddleware({
      maxInputTokens: 4000,
      reserveTokens: 500,
      store: failing,
      onSignal: (s) => signals.push(s),
    });
    let sent: BaseMessage[] = [];
    const response = await guard.wrapModelCall(
      { messages: history(10, 6000), systemMessage: new SystemMessage("s"), tools: [] },
      async (request) => ((sent = request.messages), new AIMessage("ok")),
    );
    expect(new RequestMeter().messages(sent)).toBeLessThanOrEqual(3500);
    expect(sent.map((m) => contentText(m.content)).join("\n")).toContain(
      "could not be kept: the store failed (disk full)",
    );
    expect(readContextRecord(response)!.removed.every((part) => part.key === undefined)).toBe(true);
    expect(signals.map((s) => s.code)).toEqual(["request_shrunk"]);
  });
});

describe("recovery without a window", () => {
  it("retries once at three quarters of what was refused when neither the model nor the provider names a window", async () => {
    const { ContextOverflowError } = await import("@langchain/core/errors");
    const guard = new ContextOverflowGuardMiddleware();
    const sizes: number[] = [];
    const meter = new RequestMeter();
    const response = await guard.wrapModelCall(
      { messages: history(12, 6000), systemMessage: new SystemMessage("s"), tools: [] },
      async (request) => {
        sizes.push(meter.messages(request.messages));
        if (sizes.length === 1) throw new ContextOverflowError("the request is too long");
        return new AIMessage("ok");
      },
    );
    expect(sizes).toHaveLength(2);
    expect(sizes[1]!).toBeLessThanOrEqual(sizes[0]! * 0.75 + 5);
    expect(readContextRecord(response)).toMatchObject({ reason: "overflow_recovered", window: undefined });
  });

  it("lets any other error through untouched, and never retries it", async () => {
    const guard = new ContextOverflowGuardMiddleware({ maxInputTokens: 100_000 });
    let calls = 0;
    const boom = new Error("429 rate limit");
    await expect(
      guard.wrapModelCall({ messages: history(2, 100), tools: [] }, async () => {
        calls++;
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(calls).toBe(1);
  });
});
