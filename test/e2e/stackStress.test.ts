import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { createAgent } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { recommendedGuards } from "../../src/index.js";
import { RETRIEVAL_TOOL_NAME } from "../../src/guards/budget/texts.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { makePng } from "../guards/binary/fixtures.js";
import { NO_PROBLEMS, providerPayloadProblems } from "../guards/repair/payloads.js";

/**
 * The whole recommended stack under random agent behaviour: parallel calls, repeats, phantom tools,
 * malformed arguments, tools that throw or return floods, binary payloads, HTML and odd content,
 * over a thread resumed in a second invocation. Checks the contracts (docs/architecture.md) 1 to 4 and that every
 * history converts cleanly with the real OpenAI and Anthropic converters.
 */

const OUTPUTS: Array<(n: number) => unknown> = [
  (n) => `result ${n % 3}`,
  () => "same answer",
  () => "",
  () => {
    throw new Error("backend exploded");
  },
  (n) => `${"log line\n".repeat(4000)}end ${n}`,
  () => makePng().toString("utf8"),
  () => [{ type: "image", mimeType: "image/png", data: "iVBORw0KGgo".repeat(3000) }],
  () => "<!DOCTYPE html><html><body>Service unavailable</body></html>",
  () => [
    { type: "text", text: "a block" },
    { type: "text", text: "another" },
  ],
  () => JSON.stringify({ id: "A1", seats: 3 }),
];

const argsArb = fc.oneof(fc.constant({}), fc.record({ q: fc.integer({ min: 0, max: 2 }) }));
const callArb = fc.record({
  name: fc.constantFrom(
    "search",
    "fetch_page",
    "update_record",
    "report",
    "ghost_tool",
    "extract-user_info",
    RETRIEVAL_TOOL_NAME,
  ),
  args: argsArb,
});
const turnArb: fc.Arbitrary<Omit<ScriptedTurn, "id"> & object> = fc.oneof(
  { weight: 7, arbitrary: fc.array(callArb, { minLength: 1, maxLength: 3 }).map((toolCalls) => ({ toolCalls })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('{"q": 1', '{"q": tr', "q=1", '{"q": 1} trailing')
      .map((args) => ({ invalidToolCalls: [{ name: "search", args, error: "malformed" }] })),
  },
  { weight: 1, arbitrary: fc.constant({ text: "done" }) },
);

/** Deterministic tools: output `k` of `picks` for the k-th execution, so runs can be compared. */
function toolsFor(picks: number[]) {
  let k = 0;
  const next = () => OUTPUTS[picks[k++ % picks.length]!]!(k);
  const schema = z.object({ q: z.number().optional() });
  return [
    tool(async () => next() as string, { name: "search", description: "search", schema }),
    tool(async () => next() as string, { name: "fetch_page", description: "fetch a page", schema }),
    tool(async () => next() as string, { name: "update_record", description: "change a record", schema }),
    tool(async () => [String(next()), { rows: 3 }] as [string, unknown], {
      name: "report",
      description: "report",
      schema,
      responseFormat: "content_and_artifact",
    }),
  ];
}

/** Turns with fixed tool-call ids, so two runs of one script produce the same texts. */
function withIds(turns: Array<Record<string, unknown>>, tag: string): ScriptedTurn[] {
  return turns.map((turn, t) => {
    if (Array.isArray(turn.toolCalls))
      return {
        toolCalls: turn.toolCalls.map((c: object, i: number) => ({ ...c, id: `${tag}-${t}-${i}` })),
      } as ScriptedTurn;
    if (Array.isArray(turn.invalidToolCalls))
      return {
        invalidToolCalls: turn.invalidToolCalls.map((c: object) => ({ ...c, id: `${tag}-${t}-bad` })),
      } as ScriptedTurn;
    return turn as ScriptedTurn;
  });
}

/** Two invocations of one thread; `fresh` builds a new stack for the second, as another process would. */
async function runThread(first: ScriptedTurn[], second: ScriptedTurn[], picks: number[], fresh: boolean) {
  const checkpointer = new MemorySaver();
  const model = new ScriptedChatModel({ turns: [...first, { text: "pause" }, ...second] });
  const tools = toolsFor(picks);
  const build = () =>
    createAgent({
      model,
      tools,
      checkpointer,
      middleware: recommendedGuards({
        writeTools: ["update_record"],
        outputSpecs: { fetch_page: { schema: z.object({ id: z.string(), seats: z.number() }), onInvalid: "degrade" } },
      }).agent,
    });
  const config = { configurable: { thread_id: "stress" }, recursionLimit: 300 };
  const agent = build();
  await agent.invoke({ messages: [new HumanMessage("start")] }, config);
  const result = await (fresh ? build() : agent).invoke({ messages: [new HumanMessage("go on")] }, config);
  return result.messages as BaseMessage[];
}

/** What the model and the user read: message kinds, texts, call names and statuses. */
const transcript = (messages: BaseMessage[]) =>
  messages.map((m) => [
    m.type,
    JSON.stringify(m.content),
    (m as { tool_calls?: Array<{ name: string }> }).tool_calls?.map((c) => c.name),
    (m as ToolMessage).status,
  ]);

let cases = 0;
/** Which guards acted across all cases, so the suite proves it exercised them. */
const acted = new Map<string, number>();
afterAll(() =>
  console.log(
    `stack stress: ${cases} random threads, each run twice (same instance, fresh instance); guards that acted: ${JSON.stringify(Object.fromEntries(acted))}`,
  ),
);

describe("the recommended stack under stress", () => {
  it("keeps contracts 1-4 and clean provider payloads on random threads", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnArb, { minLength: 1, maxLength: 8 }),
        fc.array(turnArb, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat({ max: OUTPUTS.length - 1 }), { minLength: 1, maxLength: 6 }),
        async (first, second, picks) => {
          cases++;
          const [a, b] = [withIds(first, "a"), withIds(second, "b")];
          const sameInstance = await runThread(a, b, picks, false);
          const freshInstance = await runThread(a, b, picks, true);

          // 1. pairing, in LangChain's history and in each provider's payload
          assertToolCallPairing(freshInstance);
          expect(providerPayloadProblems(freshInstance)).toEqual(NO_PROBLEMS);
          // 2. no exception reached invoke (we are here), and every thrown tool error became an answer
          for (const m of freshInstance.filter(ToolMessage.isInstance))
            expect(String(m.content)).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
          // 3. nothing lost silently: a shortened result says so, and the artifact survives
          for (const m of freshInstance.filter(ToolMessage.isInstance)) {
            const budget = (m.response_metadata as { harness_kit?: { budget?: unknown } })?.harness_kit?.budget;
            if (budget) expect(String(m.content)).toMatch(/omitted|not kept|removed|stored/);
            if (m.name === "report" && m.status !== "error") expect(m.artifact).toEqual({ rows: 3 });
          }
          for (const m of freshInstance) {
            const guard = (m.response_metadata as { harness_kit?: { guard?: string } })?.harness_kit?.guard;
            if (guard) acted.set(guard, (acted.get(guard) ?? 0) + 1);
          }
          // 4. a fresh instance decides exactly as the one that saw the whole thread
          expect(transcript(freshInstance)).toEqual(transcript(sameInstance));
        },
      ),
      { numRuns: 60 },
    );
    for (const guard of [
      "ToolResultBudgetMiddleware",
      "BinaryReadGuardMiddleware",
      "OutputValidatorMiddleware",
      "ToolCallRepairMiddleware",
      "ProgressAwareLoopGuardMiddleware",
    ]) {
      expect(acted.get(guard) ?? 0, `${guard} never acted`).toBeGreaterThan(0);
    }
  }, 600_000);
});
