import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildObservations, makeSetMembershipDelta, ObservationStore } from "../../src/observe.js";
import { loadHasher } from "../../src/observe/hash.js";
import { history } from "../helpers/history.js";

describe("buildObservations", () => {
  it("pairs calls with results and records what the guards need", async () => {
    const obs = await buildObservations(
      history([
        { tool: "search", args: { q: "a", n: 1 }, result: "r1" },
        { tool: "search", args: { n: 1, q: "a" }, result: "r1" },
        { tool: "book", args: { id: 1 }, result: "ValueError: seat taken", status: "error" },
      ]),
    );
    expect(obs).toHaveLength(3);
    const [first, second, third] = obs;
    expect(first!.argsFingerprint).toBe(second!.argsFingerprint);
    expect(first!.sameArgsRepeatCount).toBe(0);
    expect(second!.sameArgsRepeatCount).toBe(1);
    expect(first!.newInformationDelta).toBe(1);
    expect(second!.newInformationDelta).toBe(0);
    expect(second!.resultFingerprint).toBe(first!.resultFingerprint);
    expect(third).toMatchObject({
      status: "error",
      errorClass: "ValueError",
      toolName: "book",
      turn: 2,
      resultSize: 22,
    });
  });

  it("measures novelty line by line against earlier results of the same call", async () => {
    const obs = await buildObservations(
      history([
        { tool: "tail", args: { f: "log" }, result: "a\nb\nc" },
        { tool: "tail", args: { f: "log" }, result: "b\nc\nd" },
        { tool: "tail", args: { f: "log" }, result: "a\nb\nc\nd" },
      ]),
    );
    expect(obs[1]!.newInformationDelta).toBeCloseTo(2 / 6);
    expect(obs[2]!.newInformationDelta).toBe(0);
  });

  it("ignores volatile fields in results but not in arguments", async () => {
    const obs = await buildObservations(
      history([
        { tool: "poll", args: { at: "2024-01-01T00:00:00Z" }, result: '{"s":"run","t":"2024-01-01T00:00:01Z"}' },
        { tool: "poll", args: { at: "2024-01-01T00:00:00Z" }, result: '{"s":"run","t":"2024-01-01T00:00:09Z"}' },
        { tool: "poll", args: { at: "2024-01-02T00:00:00Z" }, result: '{"s":"run","t":"2024-01-01T00:00:09Z"}' },
      ]),
    );
    expect(obs[1]!.newInformationDelta).toBe(0);
    expect(obs[1]!.resultFingerprint).toBe(obs[0]!.resultFingerprint);
    expect(obs[2]!.argsFingerprint).not.toBe(obs[1]!.argsFingerprint);
    expect(plain(obs)[0]).toHaveProperty("resultFingerprint", obs[0]!.resultFingerprint);
  });

  it("judges a result replaced in history by the original recorded in its metadata", async () => {
    const messages = history([
      { tool: "dump", result: "big original" },
      { tool: "dump", result: "preview A" },
      { tool: "dump", result: "preview B" },
    ]);
    const hash = await loadHasher();
    const tools = messages.filter((m) => m.type === "tool");
    for (const m of tools.slice(1))
      m.response_metadata = { harness_kit: { original: { fingerprint: hash("big original"), size: 2_000_000 } } };
    const obs = await buildObservations(messages);
    expect(obs.map((o) => o.resultSize)).toEqual([12, 2_000_000, 2_000_000]);
    expect(new Set(obs.map((o) => o.resultFingerprint)).size).toBe(1);
    expect(obs.map((o) => o.newInformationDelta)).toEqual([1, 0, 0]);
  });

  it("reads content blocks, objects and odd shapes without throwing", async () => {
    const messages: BaseMessage[] = [
      new HumanMessage("x"),
      new AIMessage({
        content: "",
        tool_calls: [
          { id: "1", name: "img", args: {} },
          { id: "2", name: "obj", args: {} },
          { id: "3", name: "none", args: {} },
        ],
      }),
      new ToolMessage({
        content: [
          { type: "text", text: "caption" },
          { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
        ],
        tool_call_id: "1",
      }),
      { type: "tool", tool_call_id: "2", content: { nested: { a: 1n } } } as unknown as BaseMessage,
      { type: "tool", tool_call_id: "3", content: null } as unknown as BaseMessage,
      { type: "tool", tool_call_id: "orphan", content: "x" } as unknown as BaseMessage,
    ];
    const obs = await buildObservations(messages);
    expect(obs.map((o) => o.toolName)).toEqual(["img", "obj", "none"]);
    expect(obs[0]!.resultSize).toBeGreaterThan("caption".length + "iVBORw0KGgo=".length);
    expect(obs[2]!.resultSize).toBe(0);
  });

  it("groups a tool with a delta override by name and uses the override", async () => {
    const todos = (items: string[]) => ({
      tool: "write_todos",
      args: { todos: items.map((content) => ({ content })) },
    });
    const obs = await buildObservations(history([todos(["a", "b"]), todos(["a", "b"]), todos(["a", "c"])]), {
      deltaOverrides: { write_todos: makeSetMembershipDelta("todos", "content") },
    });
    expect(obs.map((o) => o.newInformationDelta)).toEqual([1, 0, 0.5]);
    expect(new Set(obs.map((o) => o.callKey)).size).toBe(1);
  });

  it("treats a throwing delta override as all new", async () => {
    const obs = await buildObservations(history([{ tool: "t" }, { tool: "t" }]), {
      deltaOverrides: {
        t: () => {
          throw new Error("bug");
        },
      },
    });
    expect(obs[1]!.newInformationDelta).toBe(1);
  });
});

// Random histories: tools, args, results, errors, parallel batches and user messages.
const stepArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      tool: fc.constantFrom("a", "b", "c"),
      args: fc.record({ x: fc.integer({ min: 0, max: 2 }) }),
      result: fc.constantFrom("r1", "r2", "r1\nr2", "", "Error: boom"),
      status: fc.constantFrom<"success" | "error">("success", "error"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      batch: fc.array(
        fc.record({
          tool: fc.constantFrom("a", "b"),
          args: fc.record({ x: fc.integer({ min: 0, max: 1 }) }),
          result: fc.constantFrom("r1", "r2"),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ human: fc.constant("again") }) },
);

/** Every field, the lazily computed result fingerprint included. */
const plain = (observations: readonly unknown[]) => JSON.parse(JSON.stringify(observations)) as unknown[];

describe("ObservationStore", () => {
  it("gives the same answer incrementally as a full rebuild, for any split of any history", async () => {
    const hash = await loadHasher();
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { maxLength: 25 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (steps, cuts) => {
          const messages = history(steps);
          const store = new ObservationStore(hash);
          for (const cut of [...cuts].sort((x, y) => x - y))
            store.update(messages.slice(0, cut % (messages.length + 1)));
          store.update(messages);
          expect(plain(store.observations)).toEqual(plain(await buildObservations(messages)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("rebuilds when the history is rewritten instead of extended", async () => {
    const hash = await loadHasher();
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 2, maxLength: 15 }),
        fc.array(stepArb, { maxLength: 10 }),
        fc.nat(),
        async (before, after, keep) => {
          const first = history(before);
          const store = new ObservationStore(hash);
          store.update(first);
          // a summariser keeps a tail and writes new messages; or a message at the end is replaced
          const rewritten = [new HumanMessage("summary"), ...first.slice(keep % first.length), ...history(after)];
          store.update(rewritten);
          expect(plain(store.observations)).toEqual(plain(await buildObservations(rewritten)));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("near-duplicate shapes", () => {
  it("reads a pending call's arguments once: the shape judged before it ran is the one its observation keeps", async () => {
    const messages = history([{ tool: "search", args: { query: "flights to Paris in May" }, result: "none" }], {
      pendingLast: true,
    });
    const store = new ObservationStore(await loadHasher());
    const args = (messages.at(-1) as AIMessage).tool_calls![0]!.args;
    const pendingShape = store.near.shapeOf(args);
    expect(store.near.shapeOf(args)).toBe(pendingShape);
    messages.push(
      new ToolMessage({ content: "none", tool_call_id: (messages.at(-1) as AIMessage).tool_calls![0]!.id! }),
    );
    store.update(messages);
    expect(store.near.shapeAt(0)).toBe(pendingShape);
    // Equal arguments in another object are read afresh, to an equal shape.
    const copy = store.near.shapeOf({ ...args });
    expect(copy).not.toBe(pendingShape);
    expect(copy).toEqual(pendingShape);
  });
});
