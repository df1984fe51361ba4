import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { MemoryOffloadStore, ToolResultBudgetMiddleware } from "../../../src/index.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { keyIn, readStoredTurn } from "../../e2e/offloadKeys.js";

/** Issue 28, item 1: what read_stored_result and the budget's previews hand back, through real createAgent graphs. */

const LIMIT = 1_000;
const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const answers = (messages: readonly BaseMessage[]) =>
  messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

/** Whether `s` holds half a surrogate pair: a provider encoding it to UTF-8 refuses or mangles it. */
const hasLoneSurrogate = (s: string) =>
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

async function run(output: string, turns: ScriptedTurn[], unit: "chars" | "tokens" = "chars") {
  const fetch = tool(async () => output, { name: "fetch_page", description: "Fetches.", schema: z.object({}) });
  const budget = new ToolResultBudgetMiddleware({
    limit: unit === "chars" ? LIMIT : 250,
    unit,
    store: new MemoryOffloadStore(),
  });
  const agent = createAgent({ model: new ScriptedChatModel({ turns }), tools: [fetch], middleware: [budget] });
  const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 200 });
  assertToolCallPairing(messages);
  return answers(messages);
}

const fetchTurn: ScriptedTurn = { toolCalls: [{ name: "fetch_page", args: {} }] };

describe("pages and previews never hold half a character", () => {
  const EMOJI = "😀".repeat(3_000);
  const MIXED = Array.from({ length: 600 }, (_, i) => `${"a".repeat(i % 7)}😀 line ${i} 👍🏽`).join("\n");

  it.each([0, 1, 2, 3, 999, 1_001, 5_999])("read_stored_result at offset %i of a result of emoji", async (offset) => {
    const [, page] = await run(EMOJI, [fetchTurn, readStoredTurn({ offset }), { text: "done" }]);
    const body = text(page!).slice(text(page!).indexOf("]\n") + 2);
    expect(hasLoneSurrogate(text(page!))).toBe(false);
    expect(body.length).toBeGreaterThan(0);
    expect(EMOJI).toContain(body);
  });

  it.each([1, 2, 3, 17, 501])("read_stored_result at offset %i with a length of 1", async (offset) => {
    const [, page] = await run(EMOJI, [fetchTurn, readStoredTurn({ offset, length: 1 }), { text: "done" }]);
    expect(hasLoneSurrogate(text(page!))).toBe(false);
    // A page that shows nothing and sends the model back to the same offset would loop forever.
    expect(text(page!)).not.toContain(`Continue with offset ${offset}.`);
  });

  it.each([["chars"], ["tokens"]] as const)("the budget's preview of emoji, unit %s", async (unit) => {
    for (const output of [EMOJI, MIXED, `x${EMOJI}`]) {
      const [preview] = await run(output, [fetchTurn, { text: "done" }], unit);
      expect(hasLoneSurrogate(text(preview!))).toBe(false);
    }
  });

  it("legitimate text reads back unchanged: paging from 0 with the offsets the answers give rebuilds the result", async () => {
    const turns: ScriptedTurn[] = [fetchTurn];
    let next = 0;
    const pages: string[] = [];
    const step: ScriptedTurn = (seen) => {
      const last = text(seen.at(-1)!);
      const found = /Continue with offset (\d+)\./.exec(last);
      if (seen.at(-1) && ToolMessage.isInstance(seen.at(-1)) && last.startsWith("[Characters"))
        pages.push(last.slice(last.indexOf("]\n") + 2));
      if (pages.length > 0 && !found) return { text: "done" };
      next = found ? Number(found[1]) : 0;
      return { toolCalls: [{ name: "read_stored_result", args: { key: keyIn(seen), offset: next } }] };
    };
    for (let i = 0; i < 40; i++) turns.push(step);
    await run(MIXED, turns);
    expect(pages.join("")).toBe(MIXED);
  });
});

describe("read_stored_result answers bad arguments in a sentence, within the budget", () => {
  const LOG = Array.from({ length: 400 }, (_, i) => `line ${i} ok`).join("\n");
  const bad: Array<[string, (key: string) => Record<string, unknown>]> = [
    ["an offset that is not a number", (key) => ({ key, offset: "abc" })],
    ["an offset that is an object", (key) => ({ key, offset: { from: 3 } })],
    ["a length that is not a number", (key) => ({ key, length: "all" })],
    ["a key that is a number", () => ({ key: 42 })],
    ["no key", () => ({ offset: 10 })],
    ["a key that is null", () => ({ key: null })],
    ["a pattern that is a list", (key) => ({ key, pattern: ["ERROR"] })],
  ];

  it.each(bad)("%s", async (_name, args) => {
    const [, answer] = await run(LOG, [
      fetchTurn,
      (seen) => ({ toolCalls: [{ name: "read_stored_result", args: args(keyIn(seen)) }] }),
      { text: "done" },
    ]);
    const said = text(answer!);
    expect(said.length).toBeLessThanOrEqual(LIMIT);
    expect(said).not.toMatch(/\n\s+at |node_modules|\/src\/|file:\/\//);
    expect(said.split(/(?<=\.)\s/).length).toBeLessThanOrEqual(2);
    expect(said).toMatch(/^read_stored_result did not run: /);
    expect(answer!.status).toBe("error");
  });

  it("good arguments still read: numbers given as strings are read as numbers", async () => {
    const [, answer] = await run(LOG, [fetchTurn, readStoredTurn({ offset: "100", length: "20" }), { text: "done" }]);
    expect(text(answer!)).toContain(`[Characters 100 to 120 of ${LOG.length}`);
  });
});
