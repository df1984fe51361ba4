import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createDeepAgent } from "deepagents";
import {
  createAgent,
  humanInTheLoopMiddleware,
  summarizationMiddleware,
  toolCallLimitMiddleware,
  type AgentMiddleware,
} from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { readMark } from "../../src/core/marks.js";
import type { Signal } from "../../src/core/signals.js";
import { PathGuardMiddleware } from "../../src/guards/path/PathGuardMiddleware.js";
import { ask, callsOf, deny, gt } from "../../src/guards/policy/helpers.js";
import type { PolicyRules } from "../../src/guards/policy/rules.js";
import { OutputValidatorMiddleware } from "../../src/guards/output/OutputValidatorMiddleware.js";
import { recommendedGuards, type RecommendedGuardsOptions } from "../../src/stack/recommendedGuards.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";
import { replayedBesideLive } from "../helpers/replayAgrees.js";
import { accountSchema, BAD_OUTPUTS, readAccount, VALID_ACCOUNT, writeAccount } from "../guards/output/fixtures.js";

/**
 * A call a guard answered without running did not run (docs/architecture.md, "Judge as one"):
 * for every other guard it is no result and no repeat, so the retry it invited runs. Each case
 * goes through a real createAgent graph, and the stack's loop guards replayed on the thread
 * decide what they decided live.
 */

/** Tools that record each real run, in order. */
function recordingTools() {
  const ran: string[] = [];
  const outputs: string[] = [];
  const make = <S extends z.ZodObject>(name: string, schema: S, answer: () => string = () => `${name} done`) =>
    tool(
      async (args: z.infer<S>) => {
        ran.push(`${name} ${JSON.stringify(args)}`);
        return answer();
      },
      { name, description: name, schema },
    );
  const tools = [
    make("get_account", z.object({ id: z.number() }), () =>
      outputs.length > 1 ? outputs.shift()! : (outputs[0] ?? VALID_ACCOUNT),
    ),
    make("update_account", z.object({ id: z.number(), seats: z.number() })),
    make("set_plan", z.object({ id: z.number(), plan: z.enum(["free", "pro"]), seats: z.number() })),
    make("transfer_funds", z.object({ amount: z.number(), to: z.string() })),
    make("send_email", z.object({ to: z.string(), body: z.string() })),
    make("search_docs", z.object({ query: z.string() })),
  ];
  return { ran, outputs, tools };
}

interface Scenario {
  turns: ScriptedTurn[];
  middleware: (signals: Signal[]) => AgentMiddleware[];
  outputs?: string[];
  extraTools?: unknown[];
}

function agentFor(scenario: Scenario) {
  const signals: Signal[] = [];
  const { ran, outputs, tools } = recordingTools();
  outputs.push(...(scenario.outputs ?? []));
  const middleware = scenario.middleware(signals);
  const agent = createAgent({
    model: new ScriptedChatModel({ turns: scenario.turns }),
    tools: [...tools, ...((scenario.extraTools ?? []) as typeof tools)],
    middleware,
    checkpointer: new MemorySaver(),
  });
  let thread = 0;
  const config = (context: Record<string, unknown> = {}) => ({ configurable: { thread_id: `t${thread}` }, context });
  return {
    signals,
    ran,
    middleware,
    newThread: () => void thread++,
    say: async (text: string, context?: Record<string, unknown>) =>
      agent.invoke({ messages: [new HumanMessage(text)] }, config(context)),
    resume: async (resume: unknown, context?: Record<string, unknown>) =>
      agent.invoke(new Command({ resume }), config(context)),
    messages: async (): Promise<BaseMessage[]> =>
      ((await agent.graph.getState(config())).values as { messages: BaseMessage[] }).messages,
  };
}

const stackSignals = (signals: Signal[], options: RecommendedGuardsOptions = {}) =>
  recommendedGuards({ onSignal: (s) => signals.push(s), ...options }).agent;

/**
 * Replay of the thread through the stack's loop guards gives the decisions they signalled live;
 * `anyOrder` where a batch's parallel calls signal in the order they happen to run.
 */
async function expectReplayAgrees(run: ReturnType<typeof agentFor>, anyOrder = false) {
  const messages = await run.messages();
  assertToolCallPairing(messages);
  const { replayed, decided, live } = await replayedBesideLive(messages, run.middleware, run.signals);
  if (anyOrder) expect(decided.sort()).toEqual(live.sort());
  else expect(decided).toEqual(live);
  return replayed;
}

/** Text the model read that calls an unrun call a repeat or a result. */
const REPEAT_TEXT = /already (failed|returned)|same result|nothing new/i;

async function expectNoRepeatClaims(run: ReturnType<typeof agentFor>) {
  const answers = (await run.messages()).filter((m): m is ToolMessage => ToolMessage.isInstance(m));
  expect(answers.filter((m) => REPEAT_TEXT.test(String(m.content))).map((m) => m.content)).toEqual([]);
}

const validatorOptions = {
  outputSpecs: { get_account: { schema: accountSchema, onInvalid: "degrade" as const } },
  writeTools: ["update_account"],
};

describe("validator degrade: the stack recovers exactly as the validator alone does", () => {
  const alone = (signals: Signal[]) => [
    new OutputValidatorMiddleware({
      tools: validatorOptions.outputSpecs,
      writeTools: validatorOptions.writeTools,
      onSignal: (s) => signals.push(s),
    }),
  ];
  const stack = (signals: Signal[]) => stackSignals(signals, validatorOptions);
  /** Runs one script through `middleware`; each string of `script` is a user message, each array the model's turns after it. */
  const runWith = async (middleware: Scenario["middleware"], bad: string, script: Array<string | ScriptedTurn[]>) => {
    const turns = script.filter((part): part is ScriptedTurn[] => Array.isArray(part)).flat();
    const run = agentFor({ turns, outputs: [bad, VALID_ACCOUNT], middleware });
    for (const part of script) if (typeof part === "string") await run.say(part);
    return run;
  };
  const scripts: Array<[string, Array<string | ScriptedTurn[]>]> = [
    [
      "after a valid re-read",
      [
        "add a seat",
        [
          { toolCalls: [readAccount] },
          { toolCalls: [writeAccount] },
          { toolCalls: [readAccount] },
          { toolCalls: [writeAccount] },
          { text: "done" },
        ],
      ],
    ],
    [
      "after a new user message",
      [
        "add a seat",
        [{ toolCalls: [readAccount] }, { toolCalls: [writeAccount] }, { text: "the service is down" }],
        "it is back, add the seat",
        [{ toolCalls: [writeAccount] }, { text: "done" }],
      ],
    ],
  ];
  const cases = Object.entries(BAD_OUTPUTS).flatMap(([kind, bad]) =>
    scripts.map(([when, script]) => [kind, when, bad, script] as const),
  );

  it.each(cases)("%s, then the same write %s", async (_kind, _when, bad, script) => {
    const expected = await runWith(alone, bad, script);
    const run = await runWith(stack, bad, script);
    expect(run.ran).toEqual(expected.ran);
    expect(run.ran.at(-1)).toBe('update_account {"id":7,"seats":4}');
    await expectNoRepeatClaims(run);
    await expectReplayAgrees(run);
  });
});

describe("repair: the call fixed after a schema refusal runs", () => {
  const fixes: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ["an enum value in the wrong case", { id: 7, plan: "FREE", seats: 3 }, { id: 7, plan: "free", seats: 3 }],
    ["a missing field added", { id: 7, plan: "free" }, { id: 7, plan: "free", seats: 3 }],
    ["a number sent as a string", { id: 7, plan: "free", seats: "3" }, { id: 7, plan: "free", seats: 3 }],
  ];

  it.each(fixes)("%s", async (_, wrong, fixed) => {
    const run = agentFor({
      turns: [
        { toolCalls: [{ name: "set_plan", args: wrong }] },
        { toolCalls: [{ name: "set_plan", args: fixed }] },
        { text: "done" },
      ],
      middleware: (signals) => stackSignals(signals),
    });
    await run.say("downgrade the account");
    const answers = (await run.messages()).filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(readMark(answers[0])?.guard).toBe("ToolCallRepairMiddleware");
    expect(run.ran).toEqual([`set_plan ${JSON.stringify(fixed)}`]);
    await expectNoRepeatClaims(run);
    await expectReplayAgrees(run);
  });
});

describe("path guard: a call refused through a symlink runs once the link is fixed", () => {
  const root = mkdtempSync(join(tmpdir(), "hk-refusal-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("refuses, then runs the same call after the user fixed the link and asked again", async () => {
    const data = join(root, "data");
    mkdirSync(data);
    mkdirSync(join(root, "outside"));
    writeFileSync(join(root, "outside", "notes.txt"), "secret");
    symlinkSync(join(root, "outside", "notes.txt"), join(data, "notes.txt"));
    const read = tool(async ({ path }: { path: string }) => `read ${path}`, {
      name: "read_file",
      description: "read",
      schema: z.object({ path: z.string() }),
    });
    const call = { name: "read_file", args: { path: "notes.txt" } };
    const run = agentFor({
      turns: [{ toolCalls: [call] }, { text: "that file leaves the folder" }, { toolCalls: [call] }, { text: "done" }],
      extraTools: [read],
      middleware: (signals) =>
        stackSignals(signals, {
          pathGuard: new PathGuardMiddleware({
            roots: [data],
            baseDir: data,
            tools: { read_file: ["path"] },
            onSignal: (s) => signals.push(s),
          }),
        }),
    });
    await run.say("read my notes");
    expect(run.signals.map((s) => s.reason)).toEqual(["through_symlink"]);
    unlinkSync(join(data, "notes.txt"));
    writeFileSync(join(data, "notes.txt"), "my notes");
    await run.say("I fixed the link, read it again");
    const answers = (await run.messages()).filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(answers.at(-1)!.content).toContain("read notes.txt");
    expect(run.signals.map((s) => s.reason)).toEqual(["through_symlink"]);
    await expectReplayAgrees(run);
  });
});

const POLICY: PolicyRules = {
  rules: [
    deny("tellers-only", {
      tool: "transfer_funds",
      context: { role: { not: { in: ["teller"] } } },
      reason: "role {context.role} may not move money",
    }),
    ask("large-transfer", {
      tool: "transfer_funds",
      args: { amount: gt(1000) },
      reason: "transfers over 1000 need a second person",
    }),
  ],
};

describe("policy guard: a denied or rejected call runs when its retry is allowed", () => {
  const transfer = (amount: number) => ({ name: "transfer_funds", args: { amount, to: "acme" } });

  it("denied by role, then asked again with another role in context: it runs", async () => {
    const run = agentFor({
      turns: [{ toolCalls: [transfer(50)] }, { text: "I may not" }, { toolCalls: [transfer(50)] }, { text: "done" }],
      middleware: (signals) => stackSignals(signals, { policy: POLICY }),
    });
    await run.say("pay acme 50", { role: "intern" });
    expect(run.ran).toEqual([]);
    await run.say("pay acme 50, I am the teller now", { role: "teller" });
    expect(run.ran).toEqual(['transfer_funds {"amount":50,"to":"acme"}']);
    expect(run.signals.map((s) => `${s.guard}:${s.code}`)).toEqual(["PolicyGuardMiddleware:policy_denied"]);
    await expectNoRepeatClaims(run);
    await expectReplayAgrees(run);
  });

  it("a reviewer rejects an ask, then approves the retry: it runs", async () => {
    const run = agentFor({
      turns: [{ toolCalls: [transfer(2000)] }, { toolCalls: [transfer(2000)] }, { text: "done" }],
      middleware: (signals) => stackSignals(signals, { policy: POLICY }),
    });
    const context = { role: "teller" };
    expect((await run.say("pay acme 2000", context)).__interrupt__).toHaveLength(1);
    expect(
      (await run.resume({ decisions: [{ type: "reject", message: "Wait for the invoice." }] }, context)).__interrupt__,
    ).toHaveLength(1);
    const done = await run.resume({ decisions: [{ type: "approve" }] }, context);
    expect(String(done.messages.at(-1)!.content)).toBe("done");
    expect(run.ran).toEqual(['transfer_funds {"amount":2000,"to":"acme"}']);
    expect(run.signals.map((s) => `${s.guard}:${s.code}`)).toEqual([
      "PolicyGuardMiddleware:policy_rejected",
      "PolicyGuardMiddleware:policy_approved",
    ]);
    await expectNoRepeatClaims(run);
    await expectReplayAgrees(run);
  });
});

/**
 * LangChain's built-ins beside the stack, listed before it and after it, against the built-in alone.
 * The same two runs are in the matrix of every built-in (composeBuiltins.test.ts, docs/composing.md),
 * which compares whole observations; here the guards' decisions are also replayed on the thread.
 */
const ORDERS: Array<[string, (builtIn: AgentMiddleware, signals: Signal[]) => AgentMiddleware[]]> = [
  ["alone", (builtIn) => [builtIn]],
  ["before the stack", (builtIn, signals) => [builtIn, ...stackSignals(signals)]],
  ["after the stack", (builtIn, signals) => [...stackSignals(signals), builtIn]],
];

describe("humanInTheLoopMiddleware: a call approved after two identical rejects runs", () => {
  it.each(ORDERS)("%s", async (_, order) => {
    const email = { name: "send_email", args: { to: "ana@example.com", body: "Hi" } };
    const run = agentFor({
      turns: [{ toolCalls: [email] }, { toolCalls: [email] }, { toolCalls: [email] }, { text: "sent" }],
      middleware: (signals) => order(humanInTheLoopMiddleware({ interruptOn: { send_email: true } }), signals),
    });
    const reject = { decisions: [{ type: "reject", message: "Not yet." }] };
    expect((await run.say("email Ana")).__interrupt__).toHaveLength(1);
    expect((await run.resume(reject)).__interrupt__).toHaveLength(1);
    expect((await run.resume(reject)).__interrupt__).toHaveLength(1);
    const done = await run.resume({ decisions: [{ type: "approve" }] });
    expect(String(done.messages.at(-1)!.content)).toBe("sent");
    expect(run.ran).toEqual(['send_email {"to":"ana@example.com","body":"Hi"}']);
    const answers = (await run.messages())
      .filter((m): m is ToolMessage => ToolMessage.isInstance(m))
      .map((m) => String(m.content));
    expect(answers).toEqual(["Not yet.", "Not yet.", expect.stringContaining("send_email done")]);
    expect(run.signals).toEqual([]);
    await expectReplayAgrees(run);
  });
});

describe("toolCallLimitMiddleware: calls blocked in one run run in the next, when the limit allows them again", () => {
  it.each(ORDERS)("%s", async (_, order) => {
    const search = { name: "search_docs", args: { query: "refund policy" } };
    const run = agentFor({
      // The second turn's two calls are over the run's limit: both are blocked, and the run ends.
      turns: [{ toolCalls: [search] }, { toolCalls: [search, search] }, { toolCalls: [search] }, { text: "found it" }],
      middleware: (signals) =>
        order(toolCallLimitMiddleware({ toolName: "search_docs", runLimit: 1, exitBehavior: "continue" }), signals),
    });
    await run.say("find the refund policy");
    expect(run.ran).toHaveLength(1);
    const done = await run.say("try once more");
    expect(String(done.messages.at(-1)!.content)).toBe("found it");
    expect(run.ran).toHaveLength(2);
    await expectNoRepeatClaims(run);
    await expectReplayAgrees(run);
  });
});

describe("a sibling answered before the tools node is no earlier call of its batch", () => {
  const read = { name: "get_account", args: { id: 7 } };
  const write = { name: "update_account", args: { id: 7, seats: 4 } };
  const noWrites = () => toolCallLimitMiddleware({ toolName: "update_account", runLimit: 0, exitBehavior: "continue" });

  it.each(ORDERS.slice(1))(
    "%s: a blocked write changes nothing, so the re-read beside it is the wasted repeat it would be alone",
    async (_, order) => {
      const run = agentFor({
        turns: [{ toolCalls: [read] }, { toolCalls: [read] }, { toolCalls: [write, read] }, { text: "done" }],
        middleware: (signals) => order(noWrites(), signals),
      });
      await run.say("add a seat");
      expect(run.ran).toEqual(['get_account {"id":7}', 'get_account {"id":7}']);
      expect(run.signals.map((s) => `${s.guard}:${s.action}:${s.code}`)).toEqual([
        "ProgressAwareLoopGuardMiddleware:directive:no_progress",
      ]);
      await expectReplayAgrees(run);
    },
  );

  it("createAgent at the default recursionLimit, with a summary mid-run and tool-call ids reused every turn", async () => {
    const summariser = new ScriptedChatModel({
      turns: Array.from({ length: 50 }, () => ({ text: "Earlier: the account was read twice." })),
    });
    const reused = (call: { name: string; args: Record<string, unknown> }, id: string) => ({ ...call, id });
    const run = agentFor({
      turns: [
        { toolCalls: [reused(read, "call_0")] },
        { toolCalls: [reused(read, "call_0")] },
        { toolCalls: [reused(write, "call_0"), reused(read, "call_1")] },
        { text: "done" },
      ],
      middleware: (signals) => [
        noWrites(),
        summarizationMiddleware({ model: summariser, trigger: { messages: 4 }, keep: { messages: 2 } }),
        ...stackSignals(signals),
      ],
    });
    await run.say("add a seat");
    const messages = await run.messages();
    expect(messages.some((m) => m.additional_kwargs?.lc_source === "summarization")).toBe(true);
    assertToolCallPairing(messages);
    expect(run.ran).toEqual(['get_account {"id":7}', 'get_account {"id":7}']);
    expect(run.signals.map((s) => `${s.guard}:${s.action}:${s.code}`)).toEqual([
      "ProgressAwareLoopGuardMiddleware:directive:no_progress",
    ]);
  });

  it("createDeepAgent with guards.deepAgent: a blocked write_file changes nothing for the re-read beside it", async () => {
    const reads: number[] = [];
    const getAccount = tool(async ({ id }: { id: number }) => (reads.push(id), VALID_ACCOUNT), {
      name: "get_account",
      description: "Reads an account.",
      schema: z.object({ id: z.number() }),
    });
    const note = { name: "write_file", args: { file_path: "/seats.md", content: "4 seats" } };
    const signals: Signal[] = [];
    const guards = recommendedGuards({ writeTools: ["write_file"], onSignal: (s) => signals.push(s) });
    const model = new ScriptedChatModel({
      turns: [{ toolCalls: [read] }, { toolCalls: [read] }, { toolCalls: [note, read] }, { text: "done" }],
    });
    const result = await createDeepAgent({
      model,
      tools: [getAccount],
      middleware: [
        toolCallLimitMiddleware({ toolName: "write_file", runLimit: 0, exitBehavior: "continue" }),
        ...guards.deepAgent,
      ],
    }).invoke({ messages: [new HumanMessage("note the seats")] });
    assertToolCallPairing(result.messages);
    expect(reads).toEqual([7, 7]);
    expect(result.files ?? {}).toEqual({});
    expect(signals.map((s) => `${s.guard}:${s.action}:${s.code}`)).toEqual([
      "ProgressAwareLoopGuardMiddleware:directive:no_progress",
    ]);
  });

  it.each([
    ["before the stack", (limit: AgentMiddleware, stack: AgentMiddleware[]) => [limit, ...stack]],
    ["after the stack", (limit: AgentMiddleware, stack: AgentMiddleware[]) => [...stack, limit]],
  ])("%s: a policy counting the messages sent lets the one message beside a blocked one through", async (_, order) => {
    const oneMessage: PolicyRules = {
      rules: [deny("one-message", { tool: "send_*", when: callsOf("send_*", 1), reason: "one message per thread" })],
    };
    const sendSms = tool(async () => "sms sent", {
      name: "send_sms",
      description: "send_sms",
      schema: z.object({ to: z.string(), body: z.string() }),
    });
    const sms = { name: "send_sms", args: { to: "ana", body: "Hi" } };
    const email = { name: "send_email", args: { to: "ana@example.com", body: "Hi" } };
    const run = agentFor({
      turns: [{ toolCalls: [sms, email] }, { text: "done" }],
      middleware: (signals) =>
        order(
          toolCallLimitMiddleware({ toolName: "send_sms", runLimit: 0, exitBehavior: "continue" }),
          stackSignals(signals, { policy: oneMessage }),
        ),
      extraTools: [sendSms],
    });
    await run.say("tell Ana");
    expect(run.ran).toEqual(['send_email {"to":"ana@example.com","body":"Hi"}']);
    expect(run.signals).toEqual([]);
    await expectReplayAgrees(run);
  });
});

describe("a guard's stop never rides on a parallel call that did not reach it", () => {
  // A job polled five times, then twice in one batch: the progress guard waits on a polling tool,
  // the identical-call guard warns at the sixth poll and would stop at a seventh that ran.
  const poll = { name: "poll_job", args: { job: "j1" } };
  const turns: ScriptedTurn[] = [
    ...Array.from({ length: 5 }, () => ({ toolCalls: [poll] })),
    { toolCalls: [poll, poll] },
    { text: "done" },
  ];
  const polling = { progressGuard: { pollingTools: ["poll_job"] } };
  const limit = () => toolCallLimitMiddleware({ toolName: "poll_job", runLimit: 6, exitBehavior: "continue" });
  // The policy guard judges each call, outside the loop guards; the progress guard leaves polls alone here.
  const sixPolls: PolicyRules = {
    rules: [deny("six-polls", { tool: "poll_job", when: callsOf("poll_job", 6), reason: "six polls are enough" })],
  };
  const cases: Array<[string, Scenario["middleware"]]> = [
    ["the progress guard refused the duplicate", (signals) => stackSignals(signals, polling)],
    [
      "toolCallLimitMiddleware blocked it, listed before the stack",
      (signals) => [limit(), ...stackSignals(signals, polling)],
    ],
    [
      "toolCallLimitMiddleware blocked it, listed after the stack",
      (signals) => [...stackSignals(signals, polling), limit()],
    ],
    [
      "the policy guard denied it",
      (signals) => stackSignals(signals, { policy: sixPolls, progressGuard: { ignoreTools: ["poll_job"] } }),
    ],
  ];

  it.each(cases)("%s: the sixth poll runs and the run goes on", async (_, middleware) => {
    const polls: string[] = [];
    const pollJob = tool(async () => (polls.push("j1"), "progress 10%"), {
      name: "poll_job",
      description: "Job status.",
      schema: z.object({ job: z.string() }),
    });
    const run = agentFor({ turns, middleware, extraTools: [pollJob] });
    const done = await run.say("wait for job j1");
    expect(String(done.messages.at(-1)!.content)).toBe("done");
    expect(polls).toHaveLength(6);
    expect(run.signals.filter((s) => s.action === "stop")).toEqual([]);
    expect((await expectReplayAgrees(run, true)).stops).toEqual([]);
  });
});

describe("a stop about the turn rides on a call that reached the guard", () => {
  it("the runaway guard's token cap, on a turn whose first call a call limit blocked: signalled and explained on the call that reached it", async () => {
    const search = { name: "search_docs", args: { query: "refunds" } };
    const email = { name: "send_email", args: { to: "ana@example.com", body: "Hi" } };
    const run = agentFor({
      // The second turn passes the run's token cap; its first call is over the search limit.
      turns: [{ toolCalls: [search] }, { toolCalls: [search, email] }, { text: "done" }],
      middleware: (signals) => [
        toolCallLimitMiddleware({ toolName: "search_docs", runLimit: 1, exitBehavior: "continue" }),
        ...stackSignals(signals, { runaway: { maxRunTokens: 20 } }),
      ],
    });
    await run.say("find the refund policy and email Ana");
    const [, blocked, stopped] = (await run.messages()).filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(blocked!.content).toMatch(/limit/);
    expect(readMark(stopped)).toMatchObject({ guard: "RunawayGuardMiddleware", action: "stop" });
    expect(String(stopped!.content)).toMatch(/^Not run \(runaway guard\): the token budget/);
    expect(run.ran).toEqual(['search_docs {"query":"refunds"}']);
    expect(run.signals.map((s) => `${s.guard}:${s.action}:${s.code}:${s.toolCallId}`)).toEqual([
      `RunawayGuardMiddleware:stop:run_token_cap:${stopped!.tool_call_id}`,
    ]);
    await expectReplayAgrees(run);
  });
});

describe("createDeepAgent: a call deepagents cancelled did not run", () => {
  it("an email the reviewer left pending, cancelled by a new user message, does not reset the progress guard's chain", async () => {
    const email = { name: "send_email", args: { to: "ana@example.com", body: "Hi" } };
    let sent = 0;
    const sendEmail = tool(async () => (sent++, "sent to ana@example.com"), {
      name: "send_email",
      description: "Sends an email.",
      schema: z.object({ to: z.string(), body: z.string() }),
    });
    const model = new ScriptedChatModel({
      turns: [{ toolCalls: [email] }, { toolCalls: [email] }, { toolCalls: [email] }, { toolCalls: [email] }],
    });
    const agent = createDeepAgent({
      model,
      tools: [sendEmail],
      middleware: recommendedGuards().deepAgent,
      interruptOn: { send_email: true },
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "t" } };
    const approve = new Command({ resume: { decisions: [{ type: "approve" }] } });
    await agent.invoke({ messages: [new HumanMessage("email Ana")] }, config);
    await agent.invoke(approve, config);
    // The third email waits for the reviewer; a new user message leaves it unanswered, and
    // deepagents answers it as cancelled.
    expect((await agent.invoke(approve, config)).__interrupt__).toHaveLength(1);
    expect((await agent.invoke({ messages: [new HumanMessage("ok, go on")] }, config)).__interrupt__).toHaveLength(1);
    const { messages } = await agent.invoke(approve, config);
    assertToolCallPairing(messages);
    const answers = messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(String(answers[2]!.content)).toMatch(/was cancelled/);
    // The second email repeated the first to no effect: the fourth is refused, as the third would have been.
    expect(sent).toBe(2);
    expect(readMark(answers[3])?.guard).toBe("ProgressAwareLoopGuardMiddleware");
  });
});

describe("the whole stack as deployed: the retry a refusal invited runs", () => {
  it("createAgent at the default recursionLimit, with summaries mid-run and tool-call ids reused every turn", async () => {
    const summariser = new ScriptedChatModel({
      turns: Array.from({ length: 50 }, () => ({ text: "Earlier: the user asked for an email to Ana." })),
    });
    const email = { name: "send_email", args: { to: "ana@example.com", body: "Hi" }, id: "call_0" };
    const run = agentFor({
      turns: [{ toolCalls: [email] }, { toolCalls: [email] }, { toolCalls: [email] }, { text: "sent" }],
      middleware: (signals) => [
        humanInTheLoopMiddleware({ interruptOn: { send_email: true } }),
        summarizationMiddleware({ model: summariser, trigger: { messages: 4 }, keep: { messages: 2 } }),
        ...stackSignals(signals),
      ],
    });
    const reject = { decisions: [{ type: "reject", message: "Not yet." }] };
    await run.say("email Ana");
    await run.resume(reject);
    await run.resume(reject);
    const done = await run.resume({ decisions: [{ type: "approve" }] });
    expect(String(done.messages.at(-1)!.content)).toBe("sent");
    expect(run.ran).toEqual(['send_email {"to":"ana@example.com","body":"Hi"}']);
    expect(run.signals).toEqual([]);
    const messages = await run.messages();
    expect(messages.some((m) => m.additional_kwargs?.lc_source === "summarization")).toBe(true);
    assertToolCallPairing(messages);
  });

  it("createDeepAgent with guards.deepAgent: the write refused in safe mode runs after a valid re-read", async () => {
    const outputs = [BAD_OUTPUTS.html_instead_of_json, VALID_ACCOUNT];
    const getAccount = tool(async () => (outputs.length > 1 ? outputs.shift()! : outputs[0]!), {
      name: "get_account",
      description: "Reads an account.",
      schema: z.object({ id: z.number() }),
    });
    const note = { name: "write_file", args: { file_path: "/seats.md", content: "4 seats" } };
    const signals: Signal[] = [];
    const guards = recommendedGuards({
      outputSpecs: validatorOptions.outputSpecs,
      writeTools: ["write_file"],
      onSignal: (s) => signals.push(s),
    });
    const model = new ScriptedChatModel({
      turns: [
        { toolCalls: [readAccount] },
        { toolCalls: [note] },
        { toolCalls: [readAccount] },
        { toolCalls: [note] },
        { text: "done" },
      ],
    });
    const result = await createDeepAgent({ model, tools: [getAccount], middleware: guards.deepAgent }).invoke({
      messages: [new HumanMessage("note the seats")],
    });
    assertToolCallPairing(result.messages);
    const writes = result.messages.filter(
      (m): m is ToolMessage => ToolMessage.isInstance(m) && m.name === "write_file",
    );
    expect(readMark(writes[0])?.guard).toBe("OutputValidatorMiddleware");
    expect(readMark(writes[1])).toBeUndefined();
    expect(Object.keys(result.files ?? {})).toEqual(["/seats.md"]);
    expect(signals.filter((s) => s.guard !== "OutputValidatorMiddleware")).toEqual([]);
  });
});
