import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent, summarizationMiddleware, type AgentMiddleware } from "langchain";
import { createDeepAgent } from "deepagents";
import { z } from "zod";
import { ANSWERED_BEFORE_KEY } from "../../src/core/marks.js";
import type { Signal } from "../../src/core/signals.js";
import type { RunawayGuardOptions } from "../../src/guards/runaway/options.js";
import type { RunawayReport } from "../../src/guards/runaway/report.js";
import { ComposedGuards } from "../../src/stack/composeGuards.js";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { makePng } from "../guards/binary/fixtures.js";
import {
  loggedTools,
  quietRefusers,
  read,
  refusersArb,
  refusingMiddleware,
  search,
  type Refusers,
} from "../helpers/refusers.js";

/**
 * The composed guards' quiet path is a shortcut, not a judgement: it is taken only on steps where
 * every guard would have done nothing, so taking it must change nothing anyone can see. The same
 * scripted thread, served by the default stack and by the same guards composed to always run the
 * full chain, gets the same signals, the same run reports, the same final messages down to the
 * `harness_kit_*` stamps in their metadata, and runs the same tools. The scenarios reach each
 * boundary the quiet path decides on: new calls, exact and near repeats, a call twice in one batch,
 * unknown tools and malformed arguments; results that are short text, empty, over a budget, binary,
 * an HTML error page, an error (as text, thrown, by status), content blocks or a Command; a
 * provider that refuses a request; with people and middlewares answering calls, summaries, safe
 * mode, runaway tiers and token caps, small context windows and observe-only, over several user turns.
 */

const PNG = makePng().toString("base64");

/** What the `fetch` tool answers for a page: the scenario's plan gives each page one kind of answer. */
const KINDS = [
  "plain",
  "empty",
  "unicode",
  "json",
  "long",
  "huge",
  "token",
  "base64",
  "dataUrl",
  "html",
  "errorText",
  "throws",
  "errorStatus",
  "blocks",
  "image",
  "command",
] as const;
type Kind = (typeof KINDS)[number];

function answer(kind: Kind, page: number, section: string | undefined, id: string): unknown {
  const name = "fetch";
  switch (kind) {
    case "plain":
      return `page ${page}${section === undefined ? "" : ` section ${section}`}: 3 rows`;
    case "empty":
      return "";
    case "unicode":
      return `Zürich, Seite ${page}: 3 Zeilen ✓`;
    case "json":
      return JSON.stringify({ page, rows: 3 });
    case "long":
      return `page ${page}: ${"row ".repeat(400)}`;
    case "huge":
      return `page ${page}: ${"row ".repeat(6000)}`;
    case "token":
      return `page ${page} key ${"A1b2C3d4".repeat(10)}`;
    case "base64":
      return `page ${page} attachment ${PNG}`;
    case "dataUrl":
      return `<img src="data:image/png;base64,${PNG}"> page ${page}`;
    case "html":
      return "<!DOCTYPE html><html><body>502 Bad Gateway</body></html>";
    case "errorText":
      return `Error: page ${page} not found`;
    case "throws":
      throw new Error(`page ${page} unavailable`);
    case "errorStatus":
      return new ToolMessage({ content: `page ${page}: quota exceeded`, status: "error", tool_call_id: id, name });
    case "blocks":
      return [
        { type: "text", text: `page ${page}` },
        { type: "text", text: "3 rows" },
      ];
    case "image":
      return [{ type: "image", mimeType: "image/png", data: PNG }];
    case "command":
      return new Command({
        update: { messages: [new ToolMessage({ content: `page ${page} saved`, tool_call_id: id, name })] },
      });
  }
}

/** Plain short text on most pages, as in real threads; any kind on the others. */
const kindArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant<Kind>("plain") },
  { weight: 1, arbitrary: fc.constantFrom(...KINDS) },
);

interface Call {
  name: string;
  args: Record<string, unknown>;
}
const fetchCall = (page: number, section?: string): Call => ({
  name: "fetch",
  args: section === undefined ? { page } : { page, section },
});
/** A call to a real tool, most likely one the thread has not seen yet: its values are drawn far apart. */
const newCallArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.nat(15), fc.constantFrom(undefined, undefined, "a"))
      .map(([page, section]) => fetchCall(page, section)),
  },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 15 }).map(read) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 20, max: 35 }), fc.integer({ min: 1, max: 9 }))
      .map(([id, seats]): Call => ({ name: "update_account", args: { id, seats } })),
  },
  { weight: 1, arbitrary: fc.nat(15).map(search) },
);
/** A tool that does not exist, one a letter away from a real one, arguments of the wrong type. */
const oddCallArb = fc.constantFrom<Call[]>(
  { name: "ghost_tool", args: {} },
  { name: "fetch_pages", args: { page: 1 } },
  { name: "fetch", args: { page: "2" } },
);
/** A call of the thread: a new one, or an earlier one again, as it was or with one field changed or added. */
type Ask = Call | { again: number; near: boolean };
const askArb = fc.oneof(
  { weight: 6, arbitrary: newCallArb },
  { weight: 1, arbitrary: oddCallArb },
  { weight: 2, arbitrary: fc.record({ again: fc.nat(), near: fc.boolean() }) },
);

/** `call` with the same first argument and another field: a near repeat. */
function nearOf({ name, args }: Call): Call {
  if (name === "fetch") return { name, args: { ...args, section: args.section === "b" ? "c" : "b" } };
  if (name === "update_account") return { name, args: { ...args, seats: Number(args.seats) + 1 } };
  return { name, args: { ...args, fields: "all" } };
}

/** Argument texts that did not parse: repairable, or not. */
const rawArb = fc.constantFrom('{"page": 1, "section": "a"', "{page: 2}", '{"page": ', "page three");

/** Any model turn (ids are given when the script is played, by `script`). */
const anyTurnArb = fc.record({
  calls: fc.array(askArb, { minLength: 1, maxLength: 2 }),
  /** The first call again in the same batch. */
  twice: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
  /** A call whose arguments did not parse, beside the others. */
  raw: fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: rawArb }),
  text: fc.constantFrom("", "Let me look."),
  usage: fc.option(fc.integer({ min: 50, max: 3000 }), { freq: 2 }),
  /** The provider refuses the request first: over its window, or down. */
  refusal: fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom("overflow", "outage") },
  ),
});
/** Most turns ask for new calls that parse, as most turns of real threads do. */
const turnArb = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      calls: fc.array(newCallArb, { minLength: 1, maxLength: 2 }),
      twice: fc.constant(false),
      raw: fc.constant(null),
      text: fc.constant(""),
      usage: fc.option(fc.integer({ min: 50, max: 3000 }), { freq: 2 }),
      refusal: fc.constant(null),
    }),
  },
  { weight: 1, arbitrary: anyTurnArb },
);
type Turn = typeof turnArb extends fc.Arbitrary<infer T> ? T : never;
/** Two or three user turns, each of two to four model turns. */
const threadArb = fc.array(fc.array(turnArb, { minLength: 2, maxLength: 4 }), { minLength: 2, maxLength: 3 });

/**
 * The model's turns for a thread, each user turn's ending with a final answer, then a few more
 * answers for runs that end early. Every message and call has an id of its own, the same in both
 * threads: offload keys and their digests hold ids, and the token estimates count their characters.
 */
function script(thread: Turn[][]): ScriptedTurn[] {
  let t = 0;
  const asked: Call[] = [];
  const resolve = (ask: Ask): Call => {
    if ("name" in ask) return ask;
    const earlier = asked[ask.again % Math.max(1, asked.length)] ?? fetchCall(0);
    return ask.near ? nearOf(earlier) : earlier;
  };
  const turn = ({ calls: asks, twice, raw, text, usage, refusal }: Turn): ScriptedTurn[] => {
    const m = t++;
    const calls = asks.map(resolve);
    asked.push(...calls);
    const answer = new AIMessage({
      id: `m${m}`,
      content: text,
      tool_calls: (twice ? [...calls, calls[0]!] : calls).map((call, k) => ({
        ...call,
        id: `c${m}.${k}`,
        type: "tool_call" as const,
      })),
      invalid_tool_calls:
        raw === null
          ? []
          : [{ name: "fetch", args: raw, id: `c${m}.raw`, error: "not JSON", type: "invalid_tool_call" as const }],
      ...(usage === null
        ? {}
        : { usage_metadata: { input_tokens: usage, output_tokens: 20, total_tokens: usage + 20 } }),
    });
    return refusal === null ? [answer] : [() => refuse(refusal), answer];
  };
  const done = () => new AIMessage({ id: `m${t++}`, content: "done" });
  return [...thread.flatMap((turns) => [...turns.flatMap(turn), done()]), done(), done(), done(), done()];
}

function refuse(refusal: "overflow" | "outage"): never {
  throw new Error(
    refusal === "overflow"
      ? "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens."
      : "503 Service Unavailable: the model is overloaded",
  );
}

type Summary = "none" | "before" | "after";
type Validated = "none" | "accounts" | "pages";
type Window = "none" | "tight" | "tiny";
/**
 * Windows in tokens that these short threads outgrow: a tight one is shrunk into once results pile
 * up, a tiny one from the first tool results on (the deep agent's prompt and tools alone take
 * about 2,100 tokens, where it can stop the run).
 */
const WINDOWS = { agent: { tight: 1200, tiny: 600 }, deep: { tight: 4000, tiny: 2400 } };

interface Setup {
  refusers: Refusers;
  runaway: RunawayGuardOptions | undefined;
  deep: boolean;
  summary: Summary;
  /** Which tools the validator judges: the account reads never match their spec, a page only as JSON. */
  validated: Validated;
  observeOnly: boolean;
  /** The identical-call guard warns at the second identical call and stops at the third. */
  tightLoops: boolean;
  /** The budget's limit in characters; default 20,000. */
  budget: number | undefined;
  /** The context-overflow guard's window (none: the model declares none, nothing is shrunk). */
  window: Window;
  /** The kind of answer of each page of `fetch`. */
  plan: Kind[];
}

const setupArb = fc.record({
  // Two threads in three with no one but the guards to answer a call: a refused call is no quiet step.
  refusers: fc.oneof({ weight: 2, arbitrary: fc.constant(quietRefusers) }, { weight: 1, arbitrary: refusersArb }),
  runaway: fc.constantFrom<(RunawayGuardOptions | undefined)[]>(
    undefined,
    undefined,
    undefined,
    { warnAt: 1, blockAt: 1.5, stopAt: 1000, minInputTokens: 10 },
    { warnAt: 1, blockAt: 1.5, stopAt: 3, minInputTokens: 10 },
    { maxRunTokens: 120 },
    { maxThreadTokens: 300 },
  ),
  deep: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
  summary: fc.constantFrom<Summary[]>("none", "none", "none", "before", "after"),
  validated: fc.constantFrom<Validated[]>("none", "none", "none", "accounts", "pages"),
  observeOnly: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  tightLoops: fc.boolean(),
  budget: fc.constantFrom(undefined, undefined, 1000),
  window: fc.constantFrom<Window[]>("none", "none", "none", "tight", "tiny"),
  plan: fc.array(kindArb, { minLength: 4, maxLength: 4 }),
});

interface Served {
  signals: string[];
  reports: string[];
  transcript: string[];
  ran: string[];
  errors: string[];
  quietSteps: { tool: number; model: number };
}

interface Invocable {
  invoke(input: unknown, config: unknown): Promise<{ __interrupt__?: { value: unknown }[] }>;
}

/**
 * The thread's user turns on thread "t", each human-in-the-loop interrupt resumed with the next of
 * `approvals` for the whole batch (as playTwoTurns does, with ids of the script's own). A run that
 * throws ends its user turn; the error is returned and the next user turn goes on.
 */
async function play(agent: Invocable, users: number, approvals: readonly boolean[]): Promise<string[]> {
  const config = { configurable: { thread_id: "t" }, recursionLimit: 200 };
  const errors: string[] = [];
  let reviews = 0;
  for (let u = 0; u < users; u++) {
    const question = new HumanMessage({ id: `h${u}`, content: u === 0 ? "check the report" : "and once more" });
    try {
      let result = await agent.invoke({ messages: [question] }, config);
      for (let interrupt = result.__interrupt__?.[0]; interrupt; interrupt = result.__interrupt__?.[0]) {
        const { actionRequests } = interrupt.value as { actionRequests: unknown[] };
        const approve = approvals[reviews++ % approvals.length];
        const decisions = actionRequests.map(() =>
          approve ? { type: "approve" } : { type: "reject", message: "Not now." },
        );
        result = await agent.invoke(new Command({ resume: { decisions } }), config);
      }
    } catch (error) {
      errors.push(String(error));
    }
  }
  return errors;
}

async function serve(thread: Turn[][], setup: Setup, quiet: boolean): Promise<Served> {
  const { refusers, deep, summary, validated } = setup;
  const ran = new Set<string>();
  const signals: Signal[] = [];
  const reports: RunawayReport[] = [];
  const model = new ScriptedChatModel({ turns: script(thread) });
  const fetch = tool(
    async ({ page, section }: { page: number; section?: string }, config: { toolCall?: { id?: string } }) => {
      const id = config.toolCall?.id ?? "";
      ran.add(id);
      return answer(setup.plan[page % setup.plan.length]!, page, section, id);
    },
    {
      name: "fetch",
      description: "fetch a page",
      schema: z.object({ page: z.number(), section: z.string().optional() }),
    },
  );
  const tools = [...loggedTools(ran), fetch];
  const { before, after } = refusingMiddleware(refusers);
  if (summary !== "none") {
    const summariser = new ScriptedChatModel({
      turns: Array.from(
        { length: 100 },
        (_, i) => new AIMessage({ id: `s${i}`, content: "Earlier: the agent called tools." }),
      ),
    });
    const summarise = summarizationMiddleware({ model: summariser, trigger: { messages: 4 }, keep: { messages: 2 } });
    if (summary === "before") before.unshift(summarise);
    else after.push(summarise);
  }
  const degrade = "degrade" as const;
  const guards = recommendedGuards({
    writeTools: ["update_account"],
    runaway: { ...setup.runaway, onReport: (r) => reports.push(r) },
    onSignal: (s) => signals.push(s),
    outputSpecs: {
      ...(validated === "accounts"
        ? { get_account: { schema: z.object({ id: z.number(), seats: z.number() }), onInvalid: degrade } }
        : {}),
      ...(validated === "pages" ? { fetch: { schema: z.object({ page: z.number() }), onInvalid: degrade } } : {}),
    },
    observeOnly: setup.observeOnly,
    ...(setup.tightLoops ? { loopGuard: { warnAt: 2, stopAt: 3 } } : {}),
    ...(setup.budget === undefined ? {} : { budget: { limit: setup.budget } }),
    ...(setup.window === "none"
      ? {}
      : { contextOverflow: { maxInputTokens: WINDOWS[deep ? "deep" : "agent"][setup.window] } }),
  });
  const [composed, carry] = (deep ? guards.deepAgent : guards.agent) as unknown as [ComposedGuards, AgentMiddleware];
  const layer = quiet ? composed : new ComposedGuards(composed.name, composed.members, { quietPath: false });
  const middleware = [...before, layer as unknown as AgentMiddleware, carry, ...after];
  const options = { model, tools, middleware, checkpointer: new MemorySaver() };
  const agent = deep ? createDeepAgent(options) : createAgent(options);
  const errors = await play(agent, thread.length, refusers.approvals);
  const messages = (await agent.graph.getState({ configurable: { thread_id: "t" } })).values.messages as BaseMessage[];
  return {
    signals: signals.map((s) => JSON.stringify([s.guard, s.action, s.code, s.toolCallId, s.reason, s.detail])).sort(),
    reports: reports.map((r) => JSON.stringify(r)),
    transcript: transcriptOf(messages),
    ran: [...ran].sort(),
    errors,
    quietSteps: { ...composed.quietSteps },
  };
}

/**
 * Every message, metadata included. The record of which siblings of a batch were answered before
 * the guards judged it goes on whichever answer of the batch settles first (hooks/answeredBefore.ts),
 * and the quiet path settles sooner than the full chain: it is compared on the batch's turn.
 */
function transcriptOf(messages: readonly BaseMessage[]): string[] {
  const lines: unknown[][] = [];
  let batch: unknown[] = [];
  for (const m of messages) {
    const { [ANSWERED_BEFORE_KEY]: answeredBefore, ...metadata } = m.response_metadata as Record<string, unknown>;
    const line = [
      m.getType(),
      m.content,
      AIMessage.isInstance(m) ? [m.tool_calls, m.invalid_tool_calls] : undefined,
      ToolMessage.isInstance(m) ? [m.tool_call_id, m.status] : undefined,
      m.name,
      metadata,
      m.additional_kwargs,
    ];
    if (AIMessage.isInstance(m)) line.push((batch = []));
    if (answeredBefore !== undefined) batch.push(answeredBefore);
    lines.push(line);
  }
  return lines.map((line) => JSON.stringify(line));
}

describe("the quiet path", () => {
  it("changes nothing: the full chain's signals, run reports, messages and stamps, and tools that ran", async () => {
    let runs = 0;
    let quietTools = 0;
    let quietModels = 0;
    await fc.assert(
      fc.asyncProperty(threadArb, setupArb, async (thread, setup) => {
        const quiet = await serve(thread, setup, true);
        const full = await serve(thread, setup, false);
        runs++;
        if (quiet.quietSteps.tool > 0) quietTools++;
        if (quiet.quietSteps.model > 0) quietModels++;
        expect(quiet.errors).toEqual(full.errors);
        expect(quiet.signals).toEqual(full.signals);
        expect(quiet.reports).toEqual(full.reports);
        expect(quiet.transcript).toEqual(full.transcript);
        expect(quiet.ran).toEqual(full.ran);
      }),
      { numRuns: 100 },
    );
    // Else the property would compare the full chain with itself.
    expect(quietTools).toBeGreaterThanOrEqual(runs / 4);
    expect(quietModels).toBeGreaterThanOrEqual(runs / 4);
  }, 300_000);
});
