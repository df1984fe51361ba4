import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RequestMeter } from "../../../src/guards/overflow/estimate.js";
import { readContextRecord, type ContextRecord } from "../../../src/guards/overflow/record.js";
import {
  ContextOverflowGuardMiddleware,
  type ContextOverflowGuardOptions,
} from "../../../src/guards/overflow/ContextOverflowGuardMiddleware.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";
import { contentText } from "../../../src/observe/content.js";
import type { Signal } from "../../../src/core/signals.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { retrievalAnswers, seenTokens } from "./helpers.js";

/** A page of numbered lines, different on every page, so any slice can be traced to its page. */
function page(n: number, lines = 120): string {
  return Array.from(
    { length: lines },
    (_, i) => `page ${n} line ${i}: value=${(n * 7919 + i * 104729) % 100_000}`,
  ).join("\n");
}

const fetchPage = tool(async ({ n }: { n: number }) => page(n), {
  name: "fetch_page",
  description: "Fetch one page of the report",
  schema: z.object({ n: z.number() }),
});

const WINDOW = 8000;
const RESERVE = 1000;

async function run(
  turns: ScriptedTurn[],
  options: ContextOverflowGuardOptions = {},
  messages: BaseMessage[] = [new HumanMessage("read every page")],
) {
  const signals: Signal[] = [];
  const store = new MemoryOffloadStore();
  const guard = new ContextOverflowGuardMiddleware({
    maxInputTokens: WINDOW,
    reserveTokens: RESERVE,
    store,
    onSignal: (s) => signals.push(s),
    ...options,
  });
  const model = new ScriptedChatModel({ turns });
  const agent = createAgent({ model, tools: [fetchPage], middleware: [guard], systemPrompt: "You read reports." });
  const result = await agent.invoke({ messages }, { recursionLimit: 1000, configurable: { thread_id: "t-overflow" } });
  return { result, model, signals, store, guard, tools: [fetchPage, ...guard.tools] };
}

/** Turns that fetch `pages` pages one at a time, then answer. */
function readingTurns(pages: number): ScriptedTurn[] {
  return [
    ...Array.from({ length: pages }, (_, n) => ({ toolCalls: [{ name: "fetch_page", args: { n } }] })),
    { text: "done" },
  ];
}

function records(messages: readonly BaseMessage[]): Array<{ at: number; record: ContextRecord }> {
  return messages.flatMap((m, at) => {
    const record = readContextRecord(m);
    return record ? [{ at, record }] : [];
  });
}

describe("ContextOverflowGuardMiddleware through createAgent", () => {
  it("keeps every request of a 40-page run under the window, pairing intact, and every left-out result retrievable", async () => {
    const { result, model, store, tools, signals } = await run(readingTurns(40));
    const meter = new RequestMeter();
    const sizes = model.seen.map((seen) => seenTokens(meter, seen, tools));
    // Unguarded, the run would reach about 40 pages of ~1,000 tokens.
    expect(meter.messages(result.messages)).toBeGreaterThan(4 * WINDOW);
    for (const [i, seen] of model.seen.entries()) {
      expect(sizes[i], `request ${i}`).toBeLessThanOrEqual(WINDOW - RESERVE);
      assertToolCallPairing(seen.filter((m) => !SystemMessage.isInstance(m)));
      expect(seen[0]).toBeInstanceOf(SystemMessage);
      expect(seen[0]!.text).toBe("You read reports.");
      expect(seen[1]!.content).toBe("read every page");
    }
    // The state keeps the run as it happened.
    assertToolCallPairing(result.messages);
    const results = result.messages.filter(ToolMessage.isInstance);
    expect(results).toHaveLength(40);
    results.forEach((m, n) => expect(m.content).toBe(page(n)));

    // Every answer to a shrunk request says what the request lacked, and each key holds the original.
    const recorded = records(result.messages);
    expect(recorded.length).toBeGreaterThan(20);
    const byCall = new Map(results.map((m) => [m.tool_call_id, m]));
    for (const { record } of recorded) {
      expect(record.sentTokens).toBeLessThanOrEqual(WINDOW - RESERVE);
      for (const part of record.removed) {
        expect(part.key, JSON.stringify(part)).toBeDefined();
        const stored = await store.get(part.key!, { toolName: "", toolCallId: "", threadId: "t-overflow", state: {} });
        expect(stored).toBeDefined();
        const original = result.messages[part.index]!;
        if (part.action === "drop") expect(stored).toContain(contentText(original.content));
        else if (part.kind === "tool") expect(stored).toBe(byCall.get(part.toolCallId!)!.content);
        else expect(stored).toContain(contentText(original.content));
      }
    }
    expect(signals.some((s) => s.code === "request_shrunk")).toBe(true);
  });

  it("leaves the oldest turns of a long run of small results out behind a note whose keys hold them all, stored in parts that are written once", async () => {
    const small = tool(async ({ n }: { n: number }) => `item ${n}: ${"ok ".repeat(60)}`, {
      name: "lookup",
      description: "Look an item up",
      schema: z.object({ n: z.number() }),
    });
    const turns: ScriptedTurn[] = [
      ...Array.from({ length: 150 }, (_, n) => ({ toolCalls: [{ name: "lookup", args: { n } }] })),
      { text: "done" },
    ];
    const store = new MemoryOffloadStore();
    const guard = new ContextOverflowGuardMiddleware({ maxInputTokens: WINDOW, reserveTokens: RESERVE, store });
    const model = new ScriptedChatModel({ turns });
    const agent = createAgent({ model, tools: [small], middleware: [guard] });
    const result = await agent.invoke(
      { messages: [new HumanMessage("look everything up")] },
      { recursionLimit: 1000, configurable: { thread_id: "t-small" } },
    );
    const meter = new RequestMeter();
    for (const seen of model.seen) {
      expect(seenTokens(meter, seen, [small, ...guard.tools])).toBeLessThanOrEqual(WINDOW - RESERVE);
      assertToolCallPairing(seen);
    }
    const last = model.seen.at(-1)!;
    const note = last.find((m) => String(m.content).startsWith("[harness-kit:"));
    expect(note).toBeDefined();
    expect(String(note!.content)).toMatch(/kept in \d+ parts: messages \d+-\d+: key "/);
    const dropped = records(result.messages)
      .at(-1)!
      .record.removed.filter((r) => r.action === "drop");
    expect(dropped.length).toBeGreaterThan(100);
    for (const part of dropped) {
      expect(String(note!.content)).toContain(part.key!);
      const transcript = (await store.get(part.key!, {
        toolName: "",
        toolCallId: "",
        threadId: "t-small",
        state: {},
      }))!;
      expect(transcript).toContain(contentText(result.messages[part.index]!.content));
    }
    // Full parts are stored once: the store grows with the history, not with its square.
    const stored = [
      ...(store as unknown as { threads: Map<string, Map<string, string>> }).threads.get("thread:t-small")!.values(),
    ];
    const historyChars = result.messages.reduce((n, m) => n + contentText(m.content).length, 0);
    expect(stored.reduce((n, text) => n + text.length, 0)).toBeLessThan(25 * historyChars);
    expect(last[0]!.content).toBe("look everything up");
  });

  it("its records survive a checkpoint: a thread resumed from MemorySaver shows them", async () => {
    const checkpointer = new MemorySaver();
    const guard = new ContextOverflowGuardMiddleware({ maxInputTokens: WINDOW, reserveTokens: RESERVE });
    const agent = createAgent({
      model: new ScriptedChatModel({ turns: readingTurns(12) }),
      tools: [fetchPage],
      middleware: [guard],
      checkpointer,
    });
    const config = { configurable: { thread_id: "t-saved" }, recursionLimit: 100 };
    await agent.invoke({ messages: [new HumanMessage("read every page")] }, config);
    const restored = (await agent.graph.getState(config)).values.messages as BaseMessage[];
    const recorded = records(restored);
    expect(recorded.length).toBeGreaterThan(3);
    expect(recorded.every(({ record }) => record.removed.length > 0 && record.sentTokens <= WINDOW - RESERVE)).toBe(
      true,
    );
  });

  it("lets the model read a left-out result back with read_stored_result", async () => {
    const keyOfPage0 = (messages: BaseMessage[]) => {
      const text = messages.map((m) => contentText(m.content)).join("\n");
      const found = /key "([A-Za-z0-9_-]+)"/.exec(text);
      if (!found) throw new Error("no key in the request");
      return found[1]!;
    };
    const turns: ScriptedTurn[] = [
      ...readingTurns(12).slice(0, 12),
      (messages) => ({ toolCalls: [{ name: "read_stored_result", args: { key: keyOfPage0(messages), offset: 0 } }] }),
      { text: "done" },
    ];
    const { result } = await run(turns);
    const answers = retrievalAnswers(result.messages);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toContain("page 0 line 0: value=");
  });

  it("passes a request that fits untouched and records nothing", async () => {
    const { result, model, signals } = await run(readingTurns(3));
    expect(records(result.messages)).toHaveLength(0);
    expect(signals).toHaveLength(0);
    expect(
      model.seen
        .at(-1)!
        .filter(ToolMessage.isInstance)
        .map((m) => m.content),
    ).toEqual([page(0), page(1), page(2)]);
  });

  it("never touches the latest user message, even when older turns must go", async () => {
    const earlier: BaseMessage[] = [];
    for (let n = 0; n < 8; n++) {
      earlier.push(new HumanMessage(`question ${n}: ${"why ".repeat(300)}`));
      earlier.push(new AIMessage(`answer ${n}: ${"because ".repeat(300)}`));
    }
    const latest = new HumanMessage(`the latest question ${"please ".repeat(200)}`);
    const { model } = await run(readingTurns(6), {}, [...earlier, latest]);
    for (const seen of model.seen) {
      expect(seen.filter((m) => m.content === latest.content)).toHaveLength(1);
      expect(seen[0]!.text).toBe("You read reports.");
    }
  });

  it("ends the run with a final message when even the latest user message does not fit", async () => {
    const { result, model, signals } = await run(readingTurns(2), {}, [new HumanMessage("x ".repeat(4 * WINDOW))]);
    expect(model.callCount).toBe(0);
    const last = result.messages.at(-1)!;
    expect(AIMessage.isInstance(last)).toBe(true);
    expect(String(last.content)).toMatch(
      /^Run stopped by ContextOverflowGuardMiddleware: context_overflow — the request cannot fit/,
    );
    expect(String(last.content)).toMatch(
      /Of those, the latest user message about \d+, .*To go on, shorten the latest message/,
    );
    expect(signals.map((s) => [s.action, s.code])).toContainEqual(["stop", "context_overflow"]);
  });

  it("says what really takes the room when the current call does: its arguments, not the user's message", async () => {
    const write = tool(async () => "written", {
      name: "write_file",
      description: "Write a file",
      schema: z.object({ content: z.string() }),
    });
    const turns: ScriptedTurn[] = [
      { toolCalls: [{ name: "write_file", args: { content: "x ".repeat(4 * WINDOW) } }] },
      { text: "done" },
    ];
    const signals: Signal[] = [];
    const guard = new ContextOverflowGuardMiddleware({
      maxInputTokens: WINDOW,
      reserveTokens: RESERVE,
      onSignal: (s) => signals.push(s),
    });
    const agent = createAgent({
      model: new ScriptedChatModel({ turns }),
      tools: [write],
      middleware: [guard],
      systemPrompt: "You write files.",
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("write it")] }, { recursionLimit: 20 });
    const text = String(messages.at(-1)!.content);
    expect(text).toMatch(/the request cannot fit/);
    expect(text).toMatch(
      /Of those, the current turn \(the model's last message, its tool calls and their results\) about \d+/,
    );
    expect(text).not.toMatch(/latest user message alone/);
    expect(signals.find((s) => s.code === "context_overflow")!.detail).toMatchObject({ proof: "estimate" });
  });

  it("observe-only: signals the overflow and sends the request as it is", async () => {
    const { model, signals } = await run(readingTurns(12), { observeOnly: true });
    const meter = new RequestMeter();
    expect(Math.max(...model.seen.map((seen) => meter.messages(seen)))).toBeGreaterThan(WINDOW);
    expect(signals.filter((s) => s.code === "over_window").length).toBeGreaterThan(0);
    expect(signals.every((s) => s.action === "warn")).toBe(true);
  });
});
