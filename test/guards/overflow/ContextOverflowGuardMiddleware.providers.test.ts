import { ChatAnthropic } from "@langchain/anthropic";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { isContextOverflowError, overflowNumbers } from "../../../src/guards/overflow/providerErrors.js";
import { readContextRecord } from "../../../src/guards/overflow/record.js";
import { ContextOverflowGuardMiddleware } from "../../../src/guards/overflow/ContextOverflowGuardMiddleware.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";
import type { Signal } from "../../../src/core/signals.js";
import { findToolCallPairingViolation } from "../../../src/testing/assertToolCallPairing.js";
import { startFakeProvider, type FakeProvider } from "./providerServer.js";

/**
 * The real ChatOpenAI and ChatAnthropic classes against a local server that speaks their wire
 * formats and enforces a small window: the errors the guard recovers from are the ones these
 * packages raise for a real provider's refusal.
 */

function page(n: number): string {
  return Array.from({ length: 80 }, (_, i) => `page ${n} line ${i}: reading=${(n * 31 + i * 17) % 997}`).join("\n");
}

const fetchPage = tool(async ({ n }: { n: number }) => page(n), {
  name: "fetch_page",
  description: "Fetch one page",
  schema: z.object({ n: z.number() }),
});

type Provider = "openai" | "anthropic";

function modelFor(provider: Provider, server: FakeProvider) {
  return provider === "openai"
    ? new ChatOpenAI({
        model: "gpt-4o",
        apiKey: "sk-offline",
        maxRetries: 0,
        configuration: { baseURL: `${server.url}/v1` },
      })
    : new ChatAnthropic({
        model: "claude-sonnet-4-5",
        apiKey: "offline",
        maxRetries: 0,
        anthropicApiUrl: server.url,
        maxTokens: 1024,
      });
}

/** The ToolMessages and tool calls of a request as the provider received it, checked for pairing. */
function wirePairingProblem(provider: Provider, body: Record<string, any>): string | undefined {
  if (provider === "openai") {
    const open = new Set<string>();
    for (const m of body.messages) {
      if (m.role === "assistant") {
        if (open.size > 0) return `calls ${[...open].join(",")} unanswered`;
        for (const c of m.tool_calls ?? []) open.add(c.id);
      } else if (m.role === "tool") {
        if (!open.delete(m.tool_call_id)) return `result ${m.tool_call_id} answers no open call`;
      } else if (open.size > 0) return `a ${m.role} message between calls and their results`;
    }
    return undefined;
  }
  let open = new Set<string>();
  for (const m of body.messages) {
    const blocks = Array.isArray(m.content) ? m.content : [];
    if (m.role === "assistant") {
      if (open.size > 0) return `tool_use ${[...open].join(",")} unanswered`;
      open = new Set(blocks.filter((b: any) => b.type === "tool_use").map((b: any) => b.id));
    } else {
      for (const b of blocks.filter((b: any) => b.type === "tool_result"))
        if (!open.delete(b.tool_use_id)) return `tool_result ${b.tool_use_id} answers no open call`;
      if (open.size > 0) return `tool_use ${[...open].join(",")} unanswered`;
    }
  }
  return undefined;
}

let server: FakeProvider | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each<Provider>(["openai", "anthropic"])("ContextOverflowGuardMiddleware with %s's wire format", (provider) => {
  it("raises the package's context-overflow error for the provider's refusal (pinned)", async () => {
    server = await startFakeProvider({ window: 50, pages: 1 });
    const error = await modelFor(provider, server)
      .invoke([new HumanMessage("x ".repeat(500))])
      .catch((e: unknown) => e);
    expect(isContextOverflowError(error)).toBe(true);
    expect((error as Error).name).toBe("ContextOverflowError");
    expect(overflowNumbers(error)).toEqual({ limit: 50, requested: server.requests[0]!.tokens });
  });

  it("with the window given, no request over it ever leaves the agent", async () => {
    server = await startFakeProvider({ window: 6000, pages: 30 });
    const agent = createAgent({
      model: modelFor(provider, server),
      tools: [fetchPage],
      middleware: [new ContextOverflowGuardMiddleware({ maxInputTokens: 6000 })],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("read 30 pages")] }, { recursionLimit: 500 });
    expect(messages.at(-1)!.content).toBe("done");
    expect(server.requests).toHaveLength(31);
    for (const r of server.requests) {
      expect(r.refused).toBe(false);
      expect(wirePairingProblem(provider, r.body)).toBeUndefined();
    }
  });

  it("recovers when the profile promises more than the provider takes, and keeps the provider's window afterwards", async () => {
    server = await startFakeProvider({ window: 6000, pages: 30 });
    const signals: Signal[] = [];
    const store = new MemoryOffloadStore();
    const guard = new ContextOverflowGuardMiddleware({ store, onSignal: (s) => signals.push(s) });
    const agent = createAgent({ model: modelFor(provider, server), tools: [fetchPage], middleware: [guard] });
    const { messages } = await agent.invoke(
      { messages: [new HumanMessage("read 30 pages")] },
      { recursionLimit: 500, configurable: { thread_id: `t-${provider}` } },
    );

    expect(messages.at(-1)!.content).toBe("done");
    expect(messages.filter(ToolMessage.isInstance)).toHaveLength(30);
    const refusals = server.requests.filter((r) => r.refused);
    // One refusal teaches the guard the window; every request after the retry fits.
    expect(refusals).toHaveLength(1);
    const afterRefusal = server.requests.slice(server.requests.indexOf(refusals[0]!) + 1);
    expect(afterRefusal.length).toBeGreaterThan(10);
    for (const r of afterRefusal) {
      expect(r.tokens).toBeLessThanOrEqual(6000);
      expect(wirePairingProblem(provider, r.body)).toBeUndefined();
    }
    const recovered = messages.map(readContextRecord).find((r) => r?.reason === "overflow_recovered");
    expect(recovered?.providerWindow).toBe(6000);
    expect(signals.map((s) => s.code)).toContain("provider_refused");
    // Everything the requests left out is in the store.
    for (const record of messages.map(readContextRecord)) {
      for (const part of record?.removed ?? []) {
        expect(
          await store.get(part.key!, { toolName: "", toolCallId: "", threadId: `t-${provider}`, state: {} }),
        ).toBeDefined();
      }
    }
    expect(findToolCallPairingViolation(messages)).toBeUndefined();
  });

  it("ends the run with a final message when the provider refuses the shrunk request too", async () => {
    server = await startFakeProvider({ window: 30, pages: 3 });
    const signals: Signal[] = [];
    const guard = new ContextOverflowGuardMiddleware({ onSignal: (s) => signals.push(s) });
    const agent = createAgent({ model: modelFor(provider, server), tools: [fetchPage], middleware: [guard] });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("read")] });
    const last = messages.at(-1) as BaseMessage;
    expect(AIMessage.isInstance(last)).toBe(true);
    expect(String(last.content)).toMatch(/^Run stopped by ContextOverflowGuardMiddleware: context_overflow/);
    expect(server.requests.length).toBeLessThanOrEqual(2);
    expect(signals.at(-1)).toMatchObject({ action: "stop", code: "context_overflow" });
  });
});

describe("Anthropic's refusal of input + max_tokens over the window (issue 31, item 1)", () => {
  const anthropic = (maxTokens?: number) =>
    new ChatAnthropic({
      model: "claude-sonnet-4-5",
      apiKey: "offline",
      maxRetries: 0,
      anthropicApiUrl: server!.url,
      ...(maxTokens !== undefined ? { maxTokens } : {}),
    });

  it("Anthropic's max_tokens refusal reaches the caller as a plain BadRequestError, and is recognised (pinned)", async () => {
    server = await startFakeProvider({ window: 2000, pages: 1 });
    const error = await anthropic(1500)
      .invoke([new HumanMessage("x ".repeat(700))])
      .catch((e: unknown) => e);
    expect((error as Error).name).not.toBe("ContextOverflowError");
    expect((error as { status?: number }).status).toBe(400);
    expect(isContextOverflowError(error)).toBe(true);
    expect(overflowNumbers(error)).toEqual({ limit: 2000, requested: server.requests[0]!.tokens, reserve: 1500 });
  });

  it("learns the window and the answer's room from the numbers, recovers once, and is never refused again", async () => {
    server = await startFakeProvider({ window: 16_384, pages: 30 });
    const signals: Signal[] = [];
    const guard = new ContextOverflowGuardMiddleware({ onSignal: (s) => signals.push(s) });
    const agent = createAgent({ model: anthropic(4096), tools: [fetchPage], middleware: [guard] });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("read 30 pages")] }, { recursionLimit: 500 });

    expect(messages.at(-1)!.content).toBe("done");
    const refusals = server.requests.filter((r) => r.refused);
    expect(refusals).toHaveLength(1);
    // The input fit the window: only the answer's room did not.
    expect(refusals[0]!.tokens).toBeLessThanOrEqual(16_384);
    expect(refusals[0]!.tokens + 4096).toBeGreaterThan(16_384);
    const refused = signals.find((s) => s.code === "provider_refused")!;
    expect(refused.detail).toMatchObject({
      providerLimit: 16_384,
      providerCount: refusals[0]!.tokens,
      providerReserve: 4096,
    });
    for (const r of server.requests.slice(server.requests.indexOf(refusals[0]!) + 1)) {
      expect(r.refused).toBe(false);
      expect(r.tokens + r.body.max_tokens).toBeLessThanOrEqual(16_384);
      expect(wirePairingProblem("anthropic", r.body)).toBeUndefined();
    }
    const recovered = messages.map(readContextRecord).find((r) => r?.reason === "overflow_recovered");
    expect(recovered).toMatchObject({ providerWindow: 16_384, providerReserve: 4096 });
    expect(findToolCallPairingViolation(messages)).toBeUndefined();
  });

  it("remembers a stated room larger than a quarter of the window", async () => {
    server = await startFakeProvider({ window: 16_384, pages: 20 });
    const agent = createAgent({
      model: anthropic(6000),
      tools: [fetchPage],
      middleware: [new ContextOverflowGuardMiddleware()],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("read 20 pages")] }, { recursionLimit: 500 });
    expect(messages.at(-1)!.content).toBe("done");
    expect(server.requests.filter((r) => r.refused)).toHaveLength(1);
  });

  it("stops cleanly, after one refusal, when max_tokens leaves no room for any input", async () => {
    server = await startFakeProvider({ window: 16_384, pages: 3 });
    // claude-sonnet-4-5's default max_tokens is 16,384: the whole window.
    const agent = createAgent({
      model: anthropic(),
      tools: [fetchPage],
      middleware: [new ContextOverflowGuardMiddleware()],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("read")] });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.refused).toBe(true);
    const last = messages.at(-1)!;
    expect(AIMessage.isInstance(last)).toBe(true);
    expect(String(last.content)).toMatch(/^Run stopped by ContextOverflowGuardMiddleware: context_overflow/);
  });
});

describe.each<Provider>(["openai", "anthropic"])(
  "a run that fits is not stopped, with %s's tokenizer (issue 31, item 2)",
  (provider) => {
    /**
     * A system prompt of about half the 16,384 window in real tokens, which a counter of 4 characters
     * a token (the guard's estimate before issue 31) counts at over 13,000 (its indentation).
     */
    const policy = Array.from(
      { length: 460 },
      (_, i) => `${" ".repeat(48)}- rule ${i}: answer in the customer's language and cite section ${i % 37}.`,
    ).join("\n");
    /** One 12 KB tool result. */
    const report = Array.from(
      { length: 130 },
      (_, i) => `Paragraph ${i}: the quarterly survey found that regional demand grew while costs held steady.`,
    ).join("\n");
    const fetchReport = tool(async () => report, {
      name: "fetch_report",
      description: "Fetch the quarterly report",
      schema: z.object({}),
    });

    it("sends the smallest request instead of stopping when the estimate, not the provider, says it is over", async () => {
      server = await startFakeProvider({
        window: 16_384,
        script: ({ n }) => (n === 0 ? { toolCalls: [{ name: "fetch_report", args: {} }] } : { text: "done" }),
      });
      const model =
        provider === "openai"
          ? new ChatOpenAI({
              model: "gpt-4o",
              apiKey: "sk-offline",
              maxRetries: 0,
              maxTokens: 4096,
              configuration: { baseURL: `${server.url}/v1` },
            })
          : new ChatAnthropic({
              model: "claude-sonnet-4-5",
              apiKey: "offline",
              maxRetries: 0,
              anthropicApiUrl: server.url,
              maxTokens: 4096,
            });
      const signals: Signal[] = [];
      const errsHigh = (text: string) => Math.ceil(text.length / 4);
      const guard = new ContextOverflowGuardMiddleware({
        maxInputTokens: 16_384,
        countTokens: errsHigh,
        onSignal: (s) => signals.push(s),
      });
      const agent = createAgent({ model, tools: [fetchReport], middleware: [guard], systemPrompt: policy });
      const { messages } = await agent.invoke({ messages: [new HumanMessage("summarise the report")] });

      expect(signals.filter((s) => s.code === "context_overflow")).toEqual([]);
      expect(messages.at(-1)!.content).toBe("done");
      expect(server.requests.map((r) => r.refused)).toEqual([false, false]);
      // The counter put the system prompt alone over the limit of 12,288; the provider counted about half of that.
      const first = signals.find((s) => s.code === "request_shrunk")!;
      expect(first.detail!.estimatedTokens as number).toBeGreaterThan(12_288);
      expect(server.requests[0]!.tokens).toBeLessThan(9_000);
      for (const r of server.requests) expect(r.tokens + 4096).toBeLessThanOrEqual(16_384);
    });
  },
);
