import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, humanInTheLoopMiddleware, type HITLResponse } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readMark } from "../../../src/core/marks.js";
import type { Signal } from "../../../src/core/signals.js";
import { after, ask, callsOf, deny, gt, oneOf } from "../../../src/guards/policy/helpers.js";
import type { PolicyRules } from "../../../src/guards/policy/rules.js";
import { PolicyGuardMiddleware, type PolicyReviewRequest } from "../../../src/guards/policy/PolicyGuardMiddleware.js";
import { recommendedGuards } from "../../../src/stack/recommendedGuards.js";
import { stackMembers } from "../../helpers/stackMembers.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { outcomeAt } from "../../helpers/graphSteps.js";

const POLICY: PolicyRules = {
  rules: [
    deny("no-transfer-after-web", {
      tool: "transfer_funds",
      when: after("fetch_url"),
      reason: "a web page was read in this thread, so a transfer may follow injected text",
    }),
    deny("tellers-only", {
      tool: "transfer_funds",
      context: { role: { not: { in: ["teller", "manager"] } } },
      reason: "role {context.role} may not move money",
    }),
    ask("large-transfer", {
      tool: "transfer_funds",
      args: { amount: gt(1000) },
      reason: "transfers over 1000 ({args.amount}) need a second person",
    }),
    deny("two-emails-a-run", {
      tool: "send_email",
      when: callsOf("send_email", 2, { scope: "run" }),
      reason: "at most two emails per request",
    }),
    deny("internal-mail-only", {
      tool: "send_email",
      args: { to: { not: { matches: "@bank\\.example$" } } },
      reason: "mail goes to bank addresses only, not {args.to}",
    }),
    ask("delete-needs-approval", {
      tool: "delete_*",
      reason: "deleting needs approval",
      allowedDecisions: ["approve", "reject"],
    }),
  ],
};

function bank() {
  const ran: string[] = [];
  const make = (name: string) =>
    tool(
      async (args: Record<string, unknown>) => {
        ran.push(`${name}${JSON.stringify(args)}`);
        return `${name} done`;
      },
      {
        name,
        description: name,
        schema: z.object({
          amount: z.number().optional(),
          to: z.string().optional(),
          url: z.string().optional(),
          id: z.string().optional(),
        }),
      },
    );
  return { ran, tools: ["transfer_funds", "fetch_url", "send_email", "delete_account", "pay_invoice"].map(make) };
}

function agentWith(
  turns: ScriptedTurn[],
  options: { signals?: Signal[]; checkpointer?: MemorySaver | SqliteSaver; middleware?: unknown[] } = {},
) {
  const { ran, tools } = bank();
  const middleware = (options.middleware ?? [
    new PolicyGuardMiddleware({ policy: POLICY, onSignal: (s) => options.signals?.push(s) }),
  ]) as never[];
  const agent = createAgent({
    model: new ScriptedChatModel({ turns }),
    tools,
    middleware,
    checkpointer: options.checkpointer,
  });
  return { agent, ran };
}

const toolMessages = (messages: BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

describe("PolicyGuardMiddleware in a createAgent graph", () => {
  it("denies before the tool runs, names the rule in one line, and lets the run go on", async () => {
    const signals: Signal[] = [];
    const { agent, ran } = agentWith(
      [{ toolCalls: [{ name: "transfer_funds", args: { amount: 50, to: "x" } }] }, { text: "ok" }],
      { signals },
    );
    const result = await agent.invoke({ messages: [new HumanMessage("pay")] }, { context: { role: "intern" } });
    expect(ran).toEqual([]);
    const [answer] = toolMessages(result.messages);
    expect(answer!.content).toBe(
      'Denied by policy rule "tellers-only": role intern may not move money. This call did not run; do not retry it, tell the user it is not allowed or do the task another way.',
    );
    expect(String(answer!.content)).not.toContain("\n");
    expect(readMark(answer)).toMatchObject({ guard: "PolicyGuardMiddleware", action: "directive" });
    expect(signals.map((s) => [s.action, s.code, s.detail?.rules])).toEqual([
      ["directive", "policy_denied", ["tellers-only"]],
    ]);
    expect(signals[0]!.reason).toBe("denied by tellers-only (role intern may not move money)");
    assertToolCallPairing(result.messages);
  });

  it("a missing role is refused too (the rule is written as 'not in' the roles that may)", async () => {
    const { agent, ran } = agentWith([
      { toolCalls: [{ name: "transfer_funds", args: { amount: 50 } }] },
      { text: "ok" },
    ]);
    const result = await agent.invoke({ messages: [new HumanMessage("pay")] });
    expect(ran).toEqual([]);
    expect(String(toolMessages(result.messages)[0]!.content)).toContain("role (none) may not move money");
  });

  it("a flow rule: no transfer after a fetch_url result in the thread, even a later turn", async () => {
    const { agent, ran } = agentWith([
      { toolCalls: [{ name: "transfer_funds", args: { amount: 10 } }] },
      { toolCalls: [{ name: "fetch_url", args: { url: "https://evil.example" } }] },
      { toolCalls: [{ name: "transfer_funds", args: { amount: 10 } }] },
      { text: "done" },
    ]);
    const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { context: { role: "teller" } });
    expect(ran).toEqual(['transfer_funds{"amount":10}', 'fetch_url{"url":"https://evil.example"}']);
    const answers = toolMessages(result.messages);
    expect(String(answers[2]!.content)).toContain('rule "no-transfer-after-web"');
    assertToolCallPairing(result.messages);
  });

  it("a fetch_url in the same batch is no result yet: the sibling transfer runs", async () => {
    const { agent, ran } = agentWith([
      {
        toolCalls: [
          { name: "fetch_url", args: { url: "u" } },
          { name: "transfer_funds", args: { amount: 5 } },
        ],
      },
      { text: "done" },
    ]);
    await agent.invoke({ messages: [new HumanMessage("go")] }, { context: { role: "teller" } });
    expect(ran.sort()).toEqual(['fetch_url{"url":"u"}', 'transfer_funds{"amount":5}']);
  });

  it("a count rule sees earlier calls of the same batch, so a batch cannot split the limit", async () => {
    const signals: Signal[] = [];
    const email = (n: number) => ({ name: "send_email", args: { to: `a${n}@bank.example` } });
    const { agent, ran } = agentWith([{ toolCalls: [email(1), email(2), email(3), email(4)] }, { text: "done" }], {
      signals,
    });
    const result = await agent.invoke({ messages: [new HumanMessage("mail")] }, { context: { role: "teller" } });
    expect(ran).toHaveLength(2);
    expect(signals.map((s) => s.detail?.rules)).toEqual([["two-emails-a-run"], ["two-emails-a-run"]]);
    assertToolCallPairing(result.messages);
  });

  it("parallel calls in one batch: each is judged on its own, denials do not stop siblings", async () => {
    const { agent, ran } = agentWith([
      {
        toolCalls: [
          { name: "send_email", args: { to: "boss@bank.example" } },
          { name: "send_email", args: { to: "leak@evil.example" } },
          { name: "pay_invoice", args: { id: "7" } },
          { name: "transfer_funds", args: { amount: 20 } },
        ],
      },
      { text: "done" },
    ]);
    const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { context: { role: "intern" } });
    expect(ran.sort()).toEqual(['pay_invoice{"id":"7"}', 'send_email{"to":"boss@bank.example"}']);
    const texts = toolMessages(result.messages).map((m) => String(m.content));
    expect(texts[1]).toContain("not leak@evil.example");
    expect(texts[3]).toContain('"tellers-only"');
    assertToolCallPairing(result.messages);
  });

  it("ask: interrupts with LangChain's HITLRequest, and approve on resume runs the call once", async () => {
    const checkpointer = new MemorySaver();
    const signals: Signal[] = [];
    const { agent, ran } = agentWith(
      [{ toolCalls: [{ name: "transfer_funds", args: { amount: 5000, to: "acme" } }] }, { text: "sent" }],
      { checkpointer, signals },
    );
    const config = { configurable: { thread_id: "ask-approve" }, context: { role: "teller" } };
    const first = await agent.invoke({ messages: [new HumanMessage("pay acme")] }, config);
    expect(ran).toEqual([]);
    const pending = first.__interrupt__ as Array<{ id: string; value: PolicyReviewRequest }>;
    expect(pending).toHaveLength(1);
    expect(pending[0]!.value.actionRequests[0]).toMatchObject({
      name: "transfer_funds",
      args: { amount: 5000, to: "acme" },
    });
    expect(pending[0]!.value.actionRequests[0]!.description).toContain(
      'rule "large-transfer": transfers over 1000 (5000) need a second person',
    );
    expect(pending[0]!.value.reviewConfigs).toEqual([
      { actionName: "transfer_funds", allowedDecisions: ["approve", "edit", "reject"] },
    ]);
    const resume: HITLResponse = { decisions: [{ type: "approve" }] }; // LangChain's own type
    const done = await agent.invoke(new Command({ resume }), config);
    expect(ran).toEqual(['transfer_funds{"amount":5000,"to":"acme"}']);
    expect(toolMessages(done.messages).map((m) => m.content)).toEqual(["transfer_funds done"]);
    expect(signals.map((s) => s.code)).toEqual(["policy_approved"]);
    assertToolCallPairing(done.messages);
  });

  it("ask: a plain resume value answers every interrupt waiting (docs/policy.md says so)", async () => {
    const checkpointer = new MemorySaver();
    const signals: Signal[] = [];
    const { agent, ran } = agentWith(
      [
        {
          toolCalls: [
            { name: "transfer_funds", args: { amount: 5000, to: "acme" } },
            { name: "transfer_funds", args: { amount: 7000, to: "globex" } },
          ],
        },
        { text: "sent" },
      ],
      { checkpointer, signals },
    );
    const config = { configurable: { thread_id: "ask-plain-resume" }, context: { role: "teller" } };
    const first = await agent.invoke({ messages: [new HumanMessage("pay both")] }, config);
    expect(first.__interrupt__).toHaveLength(2);
    const done = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    expect([...ran].sort()).toEqual([
      'transfer_funds{"amount":5000,"to":"acme"}',
      'transfer_funds{"amount":7000,"to":"globex"}',
    ]);
    expect(signals.map((s) => s.code)).toEqual(["policy_approved", "policy_approved"]);
    assertToolCallPairing(done.messages);
  });

  it("ask: edit on resume runs the edited call, which is checked again and recorded on the result", async () => {
    const checkpointer = new MemorySaver();
    const { agent, ran } = agentWith(
      [{ toolCalls: [{ name: "transfer_funds", args: { amount: 5000, to: "acme" } }] }, { text: "sent" }],
      { checkpointer },
    );
    const config = { configurable: { thread_id: "ask-edit" }, context: { role: "teller" } };
    await agent.invoke({ messages: [new HumanMessage("pay acme")] }, config);
    const done = await agent.invoke(
      new Command({
        resume: {
          decisions: [{ type: "edit", editedAction: { name: "transfer_funds", args: { amount: 900, to: "acme" } } }],
        },
      }),
      config,
    );
    expect(ran).toEqual(['transfer_funds{"amount":900,"to":"acme"}']);
    const [answer] = toolMessages(done.messages);
    expect(answer!.response_metadata.harness_kit_policy).toMatchObject({
      reviewed: "edit",
      edited: { name: "transfer_funds", args: { amount: 900 } },
    });
  });

  it("ask: an edit into a denied call is denied, not run", async () => {
    const checkpointer = new MemorySaver();
    const { agent, ran } = agentWith(
      [{ toolCalls: [{ name: "transfer_funds", args: { amount: 5000 } }] }, { text: "ok" }],
      { checkpointer },
    );
    const config = { configurable: { thread_id: "ask-edit-deny" }, context: { role: "teller" } };
    await agent.invoke({ messages: [new HumanMessage("pay")] }, config);
    const done = await agent.invoke(
      new Command({
        resume: { decisions: [{ type: "edit", editedAction: { name: "send_email", args: { to: "x@evil.example" } } }] },
      }),
      config,
    );
    expect(ran).toEqual([]);
    expect(String(toolMessages(done.messages)[0]!.content)).toContain('"internal-mail-only"');
  });

  it("ask: an edit into another tool ran, so later flow rules count that tool's result", async () => {
    const checkpointer = new MemorySaver();
    const { agent, ran } = agentWith(
      [
        { toolCalls: [{ name: "transfer_funds", args: { amount: 5000, to: "acme" } }] },
        { toolCalls: [{ name: "transfer_funds", args: { amount: 50, to: "acme" } }] },
        { text: "ok" },
      ],
      { checkpointer },
    );
    const config = { configurable: { thread_id: "ask-edit-other-tool" }, context: { role: "teller" } };
    await agent.invoke({ messages: [new HumanMessage("pay")] }, config);
    const done = await agent.invoke(
      new Command({
        resume: {
          decisions: [{ type: "edit", editedAction: { name: "fetch_url", args: { url: "https://x.example" } } }],
        },
      }),
      config,
    );
    expect(ran).toEqual(['fetch_url{"url":"https://x.example"}']);
    expect(String(toolMessages(done.messages)[1]!.content)).toContain('"no-transfer-after-web"');
    assertToolCallPairing(done.messages);
  });

  it("ask: reject on resume answers the call with the reviewer's message; the tool never runs", async () => {
    const checkpointer = new MemorySaver();
    const { agent, ran } = agentWith([{ toolCalls: [{ name: "delete_account", args: { id: "9" } }] }, { text: "ok" }], {
      checkpointer,
    });
    const config = { configurable: { thread_id: "ask-reject" }, context: { role: "teller" } };
    const first = await agent.invoke({ messages: [new HumanMessage("close it")] }, config);
    expect(
      (first.__interrupt__ as Array<{ value: PolicyReviewRequest }>)[0]!.value.reviewConfigs[0]!.allowedDecisions,
    ).toEqual(["approve", "reject"]);
    const done = await agent.invoke(
      new Command({ resume: { decisions: [{ type: "reject", message: "Not without the customer's letter." }] } }),
      config,
    );
    expect(ran).toEqual([]);
    const [answer] = toolMessages(done.messages);
    expect(answer!.content).toBe("A reviewer rejected this delete_account call: Not without the customer's letter.");
    expect(readMark(answer)).toMatchObject({ guard: "PolicyGuardMiddleware", action: "directive" });
    assertToolCallPairing(done.messages);
  });

  it("ask: an answer the call does not allow (edit where only approve/reject) fails closed", async () => {
    const checkpointer = new MemorySaver();
    const { agent, ran } = agentWith([{ toolCalls: [{ name: "delete_account", args: { id: "9" } }] }, { text: "ok" }], {
      checkpointer,
    });
    const config = { configurable: { thread_id: "ask-bad" }, context: { role: "teller" } };
    await agent.invoke({ messages: [new HumanMessage("close it")] }, config);
    const done = await agent.invoke(
      new Command({
        resume: { decisions: [{ type: "edit", editedAction: { name: "delete_account", args: { id: "1" } } }] },
      }),
      config,
    );
    expect(ran).toEqual([]);
    expect(String(toolMessages(done.messages)[0]!.content)).toContain("could not be read");
  });

  it("ask in a parallel batch: one interrupt per asked call, allowed siblings run once, answers by interrupt id", async () => {
    const checkpointer = new MemorySaver();
    const { agent, ran } = agentWith(
      [
        {
          toolCalls: [
            { name: "pay_invoice", args: { id: "1" } },
            { name: "transfer_funds", args: { amount: 2000, to: "a" } },
            { name: "delete_account", args: { id: "2" } },
            { name: "transfer_funds", args: { amount: 10, to: "b" } },
          ],
        },
        { text: "done" },
      ],
      { checkpointer },
    );
    const config = { configurable: { thread_id: "ask-batch" }, context: { role: "manager" } };
    const first = await agent.invoke({ messages: [new HumanMessage("go")] }, config);
    expect(ran.sort()).toEqual(['pay_invoice{"id":"1"}', 'transfer_funds{"amount":10,"to":"b"}']);
    const pending = first.__interrupt__ as Array<{ id: string; value: PolicyReviewRequest }>;
    expect(pending.map((p) => p.value.actionRequests[0]!.name).sort()).toEqual(["delete_account", "transfer_funds"]);
    const resume = Object.fromEntries(
      pending.map((p) => [
        p.id,
        { decisions: [{ type: p.value.actionRequests[0]!.name === "transfer_funds" ? "approve" : "reject" }] },
      ]),
    );
    const done = await agent.invoke(new Command({ resume }), config);
    expect(ran.sort()).toEqual([
      'pay_invoice{"id":"1"}',
      'transfer_funds{"amount":10,"to":"b"}',
      'transfer_funds{"amount":2000,"to":"a"}',
    ]);
    expect(toolMessages(done.messages)).toHaveLength(4);
    assertToolCallPairing(done.messages);
  });

  it("after a restore: a new agent, guard and saver over the same SQLite file resume the ask and decide the same", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hk-policy-restore-"));
    try {
      const file = join(dir, "threads.sqlite");
      const turns: ScriptedTurn[] = [
        { toolCalls: [{ name: "fetch_url", args: { url: "u" } }] },
        {
          toolCalls: [
            { name: "delete_account", args: { id: "3" } },
            { name: "transfer_funds", args: { amount: 1 } },
          ],
        },
        { text: "done" },
      ];
      const config = { configurable: { thread_id: "restore" }, context: { role: "teller" } };
      const first = agentWith(turns, { checkpointer: SqliteSaver.fromConnString(file) });
      const paused = await first.agent.invoke({ messages: [new HumanMessage("go")] }, config);
      expect((paused.__interrupt__ as unknown[]).length).toBe(1);
      // A second process: nothing in memory survives, only the file.
      const signals: Signal[] = [];
      const { agent, ran } = agentWith([{ text: "done" }], { checkpointer: SqliteSaver.fromConnString(file), signals });
      const done = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
      expect(ran).toEqual(['delete_account{"id":"3"}']);
      // The transfer's denial was written in the first process; only the asked call is decided again.
      expect(signals.map((s) => [s.tool, s.code])).toEqual([["delete_account", "policy_approved"]]);
      expect(String(toolMessages(done.messages)[2]!.content)).toContain('"no-transfer-after-web"');
      assertToolCallPairing(done.messages);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("composes with humanInTheLoopMiddleware: its interrupt first (after the model), then the policy's (before the tool); the same answer shape", async () => {
    const checkpointer = new MemorySaver();
    const hitl = humanInTheLoopMiddleware({ interruptOn: { pay_invoice: true } });
    const { agent, ran } = agentWith(
      [
        {
          toolCalls: [
            { name: "pay_invoice", args: { id: "4" } },
            { name: "delete_account", args: { id: "5" } },
          ],
        },
        { text: "ok" },
      ],
      { middleware: [hitl, new PolicyGuardMiddleware({ policy: POLICY })], checkpointer },
    );
    const config = { configurable: { thread_id: "with-hitl" }, context: { role: "teller" } };
    const first = await agent.invoke({ messages: [new HumanMessage("go")] }, config);
    const hitlAsk = first.__interrupt__ as Array<{ value: PolicyReviewRequest }>;
    expect(hitlAsk.map((i) => i.value.actionRequests.map((a) => a.name))).toEqual([["pay_invoice"]]);
    const second = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    const policyAsk = second.__interrupt__ as Array<{ value: PolicyReviewRequest }>;
    expect(policyAsk.map((i) => i.value.actionRequests.map((a) => a.name))).toEqual([["delete_account"]]);
    expect(ran).toEqual(['pay_invoice{"id":"4"}']);
    const done = await agent.invoke(
      new Command({ resume: { decisions: [{ type: "reject", message: "no" }] } }),
      config,
    );
    expect(ran).toEqual(['pay_invoice{"id":"4"}']);
    assertToolCallPairing(done.messages);
  });

  it("observe-only: a deny and an ask only signal, and the calls run", async () => {
    const signals: Signal[] = [];
    const guard = new PolicyGuardMiddleware({ policy: POLICY, observeOnly: true, onSignal: (s) => signals.push(s) });
    const { agent, ran } = agentWith(
      [
        {
          toolCalls: [
            { name: "transfer_funds", args: { amount: 5 } },
            { name: "delete_account", args: { id: "1" } },
          ],
        },
        { text: "ok" },
      ],
      { middleware: [guard] },
    );
    await agent.invoke({ messages: [new HumanMessage("go")] }, { context: { role: "intern" } });
    expect(ran).toHaveLength(2);
    expect(signals.map((s) => [s.action, s.code, s.detail?.observeOnly]).sort()).toEqual([
      ["warn", "policy_ask", true],
      ["warn", "policy_denied", true],
    ]);
  });

  it("in recommendedGuards: off without rules, and right after the runaway guard with them", async () => {
    expect(stackMembers(recommendedGuards().agent).map((m) => m.name)).not.toContain("PolicyGuardMiddleware");
    const stack = recommendedGuards({ policy: POLICY }).agent;
    expect(
      stackMembers(stack)
        .map((m) => m.name)
        .slice(0, 2),
    ).toEqual(["RunawayGuardMiddleware", "PolicyGuardMiddleware"]);
    const { agent, ran } = agentWith(
      [{ toolCalls: [{ name: "transfer_funds", args: { amount: 5, to: "x" } }] }, { text: "ok" }],
      { middleware: stack },
    );
    const result = await agent.invoke({ messages: [new HumanMessage("pay")] }, { context: { role: "intern" } });
    expect(ran).toEqual([]);
    expect(String(toolMessages(result.messages)[0]!.content)).toContain('"tellers-only"');
    assertToolCallPairing(result.messages);
  });

  it("in recommendedGuards: an ask's interrupt passes out through the runaway guard, and resume runs the call once", async () => {
    const checkpointer = new MemorySaver();
    const { agent, ran } = agentWith(
      [
        {
          toolCalls: [
            { name: "transfer_funds", args: { amount: 5000, to: "acme" } },
            { name: "pay_invoice", args: { id: "1" } },
          ],
        },
        { text: "ok" },
      ],
      { middleware: recommendedGuards({ policy: POLICY }).agent, checkpointer },
    );
    const config = { configurable: { thread_id: "stack-ask" }, context: { role: "teller" } };
    const first = await agent.invoke({ messages: [new HumanMessage("pay")] }, config);
    expect((first.__interrupt__ as unknown[]).length).toBe(1);
    expect(ran).toEqual(['pay_invoice{"id":"1"}']);
    const done = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    expect(ran).toEqual(['pay_invoice{"id":"1"}', 'transfer_funds{"amount":5000,"to":"acme"}']);
    assertToolCallPairing(done.messages);
  });

  it("costs no graph step: with a policy (flow rule included) the stack still runs N tool turns in 2 + 2N steps", async () => {
    const turns = 4;
    const run = async (recursionLimit: number | undefined) => {
      const { agent, ran } = agentWith(
        [
          ...Array.from({ length: turns }, (_, i) => ({
            toolCalls: [{ name: "pay_invoice", args: { id: String(i) } }],
          })),
          { text: "done" },
        ],
        { middleware: recommendedGuards({ policy: POLICY }).agent },
      );
      await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit, context: { role: "teller" } });
      return ran.length === turns;
    };
    expect(await outcomeAt(run, 2 + 2 * turns)).toBe("finished");
    expect(await outcomeAt(run, 1 + 2 * turns)).toBe("recursion");
  });

  it("a policy given as options (observeOnly, onSignal) goes to recommendedGuards the same way", () => {
    const stack = recommendedGuards({
      policy: {
        policy: { rules: [deny("x", { tool: "t", args: { a: oneOf([1]) }, reason: "no" })] },
        observeOnly: true,
      },
    }).agent;
    const guard = stackMembers(stack).find((m) => m.name === "PolicyGuardMiddleware") as PolicyGuardMiddleware;
    expect(guard.observeOnly).toBe(true);
  });
});
