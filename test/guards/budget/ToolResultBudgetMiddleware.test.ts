import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, GraphInterrupt } from "@langchain/langgraph";
import {
  ToolResultBudgetMiddleware,
  TOOL_RESULT_BUDGET_DEFAULTS,
} from "../../../src/guards/budget/ToolResultBudgetMiddleware.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";
import type { OffloadStore } from "../../../src/offload/OffloadStore.js";
import { InvalidOptionsError } from "../../../src/core/errors.js";
import type { Signal } from "../../../src/core/signals.js";
import { loadHasher } from "../../../src/observe/hash.js";
import { resultFingerprint } from "../../../src/observe/resultFingerprint.js";

const BIG = "0123456789abcdef\n".repeat(5000); // 85,000 characters

type Wrap = ToolResultBudgetMiddleware["wrapToolCall"];
type Handler = Parameters<Wrap>[1];

function request(name = "fetch", id = "call_1", messages: BaseMessage[] = []) {
  return {
    toolCall: { name, id, args: {} },
    tool: undefined,
    state: { messages },
    runtime: {},
  } as unknown as Parameters<Wrap>[0];
}

const answer = (
  content: ToolMessage["content"],
  fields: Partial<ConstructorParameters<typeof ToolMessage>[0] & object> = {},
) => new ToolMessage({ content, tool_call_id: "call_1", name: "fetch", ...fields });

const returning = (result: ToolMessage | Command): Handler => (async () => result) as Handler;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const mark = (message: ToolMessage): Record<string, any> =>
  (message.response_metadata as { harness_kit: Record<string, unknown> }).harness_kit;

describe("ToolResultBudgetMiddleware options", () => {
  it("validates limits, unit and counter", () => {
    expect(() => new ToolResultBudgetMiddleware({ limit: 999 })).toThrow(InvalidOptionsError);
    expect(() => new ToolResultBudgetMiddleware({ limit: 1.5e3 + 0.5 })).toThrow('option "limit"');
    expect(() => new ToolResultBudgetMiddleware({ unit: "tokens", limit: 249 })).toThrow(">= 250 (tokens)");
    expect(() => new ToolResultBudgetMiddleware({ countTokens: () => 1 })).toThrow('needs unit: "tokens"');
    expect(() => new ToolResultBudgetMiddleware({ unit: "bytes" as never })).toThrow('option "unit"');
    expect(() => new ToolResultBudgetMiddleware({ toolLimits: { search: 10 } })).toThrow('option "toolLimits.search"');
    expect(() => new ToolResultBudgetMiddleware({ turnLimit: 0 })).toThrow('option "turnLimit"');
    expect(() => new ToolResultBudgetMiddleware({ storeTimeoutMs: 0 })).toThrow('option "storeTimeoutMs"');
    expect(TOOL_RESULT_BUDGET_DEFAULTS).toEqual({
      limit: { chars: 20_000, tokens: 5_000 },
      unit: "chars",
      storeTimeoutMs: 10_000,
    });
  });

  it("registers the retrieval tool only with a store", () => {
    expect(new ToolResultBudgetMiddleware().tools).toEqual([]);
    expect(new ToolResultBudgetMiddleware({ store: new MemoryOffloadStore() }).tools.map((t) => t.name)).toEqual([
      "read_stored_result",
    ]);
  });
});

describe("ToolResultBudgetMiddleware.wrapToolCall", () => {
  it("returns results under the budget as the very same object", async () => {
    const small = answer("fine");
    const budget = new ToolResultBudgetMiddleware();
    expect(await budget.wrapToolCall(request(), returning(small))).toBe(small);
    const command = new Command({ update: { messages: [small] } });
    expect(await budget.wrapToolCall(request(), returning(command))).toBe(command);
  });

  it("keeps id, name, status, artifact, metadata and other response metadata", async () => {
    const original = answer(BIG, {
      id: "msg-7",
      status: "error",
      artifact: { rows: 5000 },
      additional_kwargs: { provider: "x" },
      response_metadata: { latencyMs: 12 },
      metadata: { source: "db" },
    });
    const result = (await new ToolResultBudgetMiddleware().wrapToolCall(request(), returning(original))) as ToolMessage;
    expect(result).toBeInstanceOf(ToolMessage);
    expect(result.id).toBe("msg-7");
    expect(result.name).toBe("fetch");
    expect(result.tool_call_id).toBe("call_1");
    expect(result.status).toBe("error");
    expect(result.artifact).toEqual({ rows: 5000 });
    expect(result.additional_kwargs).toEqual({ provider: "x" });
    expect(result.metadata).toEqual({ source: "db" });
    expect(result.response_metadata.latencyMs).toBe(12);
    expect(mark(result)).toMatchObject({
      guard: "ToolResultBudgetMiddleware",
      action: "warn",
      reason: "result_truncated",
      original: { size: BIG.length, fingerprint: resultFingerprint(BIG, await loadHasher()) },
      budget: { action: "truncate", limit: 20_000, unit: "chars" },
    });
    expect(mark(result).original.offloadKey).toBeUndefined();
  });

  it("keeps another guard's mark and adds its own fields", async () => {
    const marked = answer(BIG, {
      response_metadata: {
        harness_kit: { guard: "OutputValidatorMiddleware", action: "directive", reason: "invalid" },
      },
    });
    const result = (await new ToolResultBudgetMiddleware().wrapToolCall(request(), returning(marked))) as ToolMessage;
    expect(mark(result)).toMatchObject({
      guard: "OutputValidatorMiddleware",
      action: "directive",
      reason: "invalid",
      budget: { action: "truncate" },
    });
  });

  it("rewrites the ToolMessage inside a Command and keeps the rest of the Command", async () => {
    const store = new MemoryOffloadStore();
    const command = new Command({
      goto: "model",
      update: {
        messages: [new HumanMessage("note"), answer(BIG)],
        todos: ["a"],
        files: { "/a.txt": { content: "a" } },
      },
    });
    const result = (await new ToolResultBudgetMiddleware({ store }).wrapToolCall(
      request(),
      returning(command),
    )) as Command;
    expect(result).toBeInstanceOf(Command);
    expect(result.goto).toEqual(["model"]);
    const update = result.update as Record<string, unknown>;
    expect(update.todos).toEqual(["a"]);
    expect(update.files).toEqual({ "/a.txt": { content: "a" } });
    const [note, preview] = update.messages as BaseMessage[];
    expect(note!.content).toBe("note");
    const key = /stored under the key "(fetch-call_1-[0-9a-f]{16})"/.exec(String(preview!.content))![1]!;
    expect(await store.get(key)).toBe(BIG);
  });

  it("handles a Command whose update is a list of pairs", async () => {
    const command = new Command({
      update: [
        ["messages", [answer(BIG)]],
        ["count", 1],
      ],
    });
    const result = (await new ToolResultBudgetMiddleware().wrapToolCall(request(), returning(command))) as Command;
    const update = result.update as Record<string, unknown>;
    expect(update.count).toBe(1);
    expect(String((update.messages as ToolMessage[])[0]!.content).length).toBeLessThanOrEqual(20_000);
  });

  it("writes a store's state update beside the preview, merging with the Command's own", async () => {
    const store: OffloadStore = {
      put: async (key, content) => ({
        readHint: `open ${key}`,
        stateUpdate: { files: { [`/big/${key}`]: { content } } },
      }),
      get: async () => undefined,
    };
    const budget = new ToolResultBudgetMiddleware({ store });
    const fromMessage = (await budget.wrapToolCall(request(), returning(answer(BIG)))) as Command;
    expect(fromMessage).toBeInstanceOf(Command);
    const update = fromMessage.update as { files: Record<string, { content: string }>; messages: ToolMessage[] };
    const [path] = Object.keys(update.files);
    expect(path).toMatch(/^\/big\/fetch-call_1-[0-9a-f]{16}$/);
    expect(update.files[path!]!.content).toBe(BIG);
    expect(String(update.messages[0]!.content)).toContain(`To read it, open ${path!.slice(5)}.`);

    const own = new Command({ update: { messages: [answer(BIG)], files: { "/mine.txt": { content: "x" } } } });
    const merged = ((await budget.wrapToolCall(request(), returning(own))) as Command).update as {
      files: Record<string, unknown>;
    };
    expect(Object.keys(merged.files).sort()).toEqual([expect.stringMatching(/^\/big\/fetch-call_1-/), "/mine.txt"]);
  });

  it("turns a tool's exception into an error ToolMessage, and lets interrupts through", async () => {
    const budget = new ToolResultBudgetMiddleware();
    const failing = (async () => {
      throw new Error("boom");
    }) as Handler;
    const result = (await budget.wrapToolCall(request(), failing)) as ToolMessage;
    expect(result.status).toBe("error");
    expect(String(result.content)).toContain("boom");
    const interrupting = (async () => {
      throw new GraphInterrupt();
    }) as Handler;
    await expect(budget.wrapToolCall(request(), interrupting)).rejects.toBeInstanceOf(GraphInterrupt);
  });

  it("applies per-tool limits and exclusions", async () => {
    const budget = new ToolResultBudgetMiddleware({ toolLimits: { search: 2000 }, excludeTools: ["dump"] });
    const mid = answer("y".repeat(5000));
    expect(await budget.wrapToolCall(request("fetch"), returning(mid))).toBe(mid);
    const searched = (await budget.wrapToolCall(request("search"), returning(mid))) as ToolMessage;
    expect(String(searched.content).length).toBeLessThanOrEqual(2000);
    const dumped = answer(BIG);
    expect(await budget.wrapToolCall(request("dump"), returning(dumped))).toBe(dumped);
  });

  it("gives each call of a turn an equal share of the turn limit, excluded tools aside", async () => {
    const turn = new AIMessage({
      content: "",
      tool_calls: [
        { name: "fetch", id: "call_1", args: {} },
        { name: "fetch", id: "call_2", args: {} },
        { name: "dump", id: "call_3", args: {} },
        { name: "fetch", id: "call_4", args: {} },
      ],
    });
    const budget = new ToolResultBudgetMiddleware({ turnLimit: 9000, excludeTools: ["dump"] });
    const result = (await budget.wrapToolCall(
      request("fetch", "call_1", [new HumanMessage("go"), turn]),
      returning(answer(BIG)),
    )) as ToolMessage;
    expect(String(result.content).length).toBeLessThanOrEqual(3000);
    expect(mark(result).budget.limit).toBe(3000);
    const many = new AIMessage({
      content: "",
      tool_calls: Array.from({ length: 30 }, (_, i) => ({ name: "fetch", id: `call_${i}`, args: {} })),
    });
    const floor = (await budget.wrapToolCall(
      request("fetch", "call_1", [many]),
      returning(answer(BIG)),
    )) as ToolMessage;
    expect(mark(floor).budget.limit).toBe(1000);
  });

  it("emits one signal per change, and a throwing observer changes nothing", async () => {
    const signals: Signal[] = [];
    const budget = new ToolResultBudgetMiddleware({
      store: new MemoryOffloadStore(),
      onSignal: (signal) => {
        signals.push(signal);
        throw new Error("observer bug");
      },
    });
    const result = (await budget.wrapToolCall(request(), returning(answer(BIG)))) as ToolMessage;
    expect(String(result.content)).toContain("[... ");
    expect(signals).toEqual([
      expect.objectContaining({
        guard: "ToolResultBudgetMiddleware",
        action: "warn",
        reason: "result_offloaded",
        tool: "fetch",
        toolCallId: "call_1",
        detail: expect.objectContaining({
          key: expect.stringMatching(/^fetch-call_1-[0-9a-f]{16}$/),
          chars: BIG.length,
        }),
      }),
    ]);
  });

  it("observe-only: signals an oversized result, stores nothing and changes nothing", async () => {
    const signals: Signal[] = [];
    const store = new MemoryOffloadStore();
    const budget = new ToolResultBudgetMiddleware({ store, observeOnly: true, onSignal: (s) => signals.push(s) });
    const big = answer(BIG);
    expect(await budget.wrapToolCall(request(), returning(big))).toBe(big);
    expect(store.size).toBe(0);
    expect(signals).toEqual([
      expect.objectContaining({
        reason: "over_budget",
        detail: { limit: 20_000, unit: "chars", size: BIG.length, observeOnly: true },
      }),
    ]);
  });

  it("falls back to a plain cut with a notice when its own work fails", async () => {
    const signals: Signal[] = [];
    const budget = new ToolResultBudgetMiddleware({
      onSignal: (s) => signals.push(s),
      store: new MemoryOffloadStore(),
    });
    // A content block whose `type` throws when read trips the budget's analysis, not contentText's fallback.
    let reads = 0;
    const treacherous = {
      get type() {
        if (reads++ === 0) throw new Error("getter exploded");
        return "text";
      },
      text: BIG,
    };
    const result = (await budget.wrapToolCall(request(), returning(answer([treacherous] as never)))) as ToolMessage;
    expect(signals[0]).toMatchObject({ reason: "budget_failed" });
    expect(String(result.content)).toMatch(/only the first \d+ are shown and the rest was not kept/);
    expect(String(result.content).length).toBeLessThanOrEqual(20_000);
  });

  it("leaves unreadable content alone rather than crash", async () => {
    const hostile = {
      get type(): string {
        throw new Error("always");
      },
    };
    const message = answer([hostile] as never);
    expect(await new ToolResultBudgetMiddleware().wrapToolCall(request(), returning(message))).toBe(message);
  });
});
