import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { runCli } from "../../src/cli/cli.js";
import type { Signal } from "../../src/core/signals.js";
import type { PolicyRules } from "../../src/guards/policy/rules.js";
import { PolicyGuardMiddleware } from "../../src/guards/policy/PolicyGuardMiddleware.js";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { ScriptedChatModel } from "../../src/testing/index.js";
import { captureIo } from "./io.js";

const dir = mkdtempSync(join(tmpdir(), "hk-policy-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RULES: PolicyRules = {
  rules: [
    {
      id: "no-pay-after-web",
      decision: "deny",
      tool: "pay",
      when: { after: { tool: "fetch_url" } },
      reason: "a web page was read",
    },
    {
      id: "interns-read-only",
      decision: "deny",
      tool: "pay",
      context: { role: { eq: "intern" } },
      reason: "interns cannot pay",
    },
    { id: "big-pay", decision: "ask", tool: "pay", args: { amount: { gt: 100 } }, reason: "over 100" },
  ],
};

const echo = (name: string) =>
  tool(async () => `${name} ok`, {
    name,
    description: name,
    schema: z.object({ amount: z.number().optional(), url: z.string().optional() }),
  });

describe("harness-kit eval --policy", () => {
  it("replays a saved live thread to the same decisions the live guard signalled", async () => {
    const signals: Signal[] = [];
    const agent = createAgent({
      model: new ScriptedChatModel({
        turns: [
          { toolCalls: [{ name: "pay", args: { amount: 5 } }] },
          { toolCalls: [{ name: "fetch_url", args: { url: "https://x.example" } }] },
          {
            toolCalls: [
              { name: "pay", args: { amount: 5 } },
              { name: "pay", args: { amount: 500 } },
            ],
          },
          { text: "done" },
        ],
      }),
      tools: [echo("pay"), echo("fetch_url")],
      middleware: [new PolicyGuardMiddleware({ policy: RULES, onSignal: (s) => signals.push(s) })],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] }, { context: { role: "teller" } });
    const thread = join(dir, "thread.json");
    writeFileSync(thread, JSON.stringify({ id: "t1", messages }));
    const rules = join(dir, "rules.json");
    writeFileSync(rules, JSON.stringify(RULES));

    const io = captureIo();
    expect(
      await runCli(
        ["eval", thread, "--policy", rules, "--context", '{"role":"teller"}', "--config", writeConfig(), "--jsonl"],
        io,
      ),
    ).toBe(0);
    const replayed = io
      .stdoutLines()
      .map((line) => JSON.parse(line) as { toolCallId: string; guard: string; action: string; reason: string });
    const live = signals.map((s) => ({ toolCallId: s.toolCallId, action: s.action, reason: s.reason }));
    expect(replayed.map(({ toolCallId, action, reason }) => ({ toolCallId, action, reason }))).toEqual(live);
    expect(signals.map((s) => s.code)).toEqual(["policy_denied", "policy_denied"]);
    expect(live[0]!.reason).toBe("denied by no-pay-after-web (a web page was read)");

    // Another context gives other decisions: the intern may not pay at all.
    const intern = captureIo();
    await runCli(
      ["eval", thread, "--policy", rules, "--context", '{"role":"intern"}', "--config", writeConfig(), "--jsonl"],
      intern,
    );
    expect(intern.stdoutLines().map((l) => JSON.parse(l).reason)).toEqual([
      "denied by interns-read-only (interns cannot pay)",
      "denied by no-pay-after-web (a web page was read), interns-read-only (interns cannot pay)",
      "denied by no-pay-after-web (a web page was read), interns-read-only (interns cannot pay)",
    ]);
  });

  it("a call a reviewer rejected live was answered by the policy: replay does not report the stack as differing", async () => {
    const config = { configurable: { thread_id: "reject" }, context: { role: "teller" } };
    const agent = createAgent({
      model: new ScriptedChatModel({
        turns: [{ toolCalls: [{ name: "pay", args: { amount: 500 } }] }, { text: "ok" }],
      }),
      tools: [echo("pay")],
      middleware: recommendedGuards({ policy: RULES }).agent,
      checkpointer: new MemorySaver(),
    });
    await agent.invoke({ messages: [new HumanMessage("pay")] }, config);
    const resume = { decisions: [{ type: "reject", message: "not today" }] };
    const { messages } = await agent.invoke(new Command({ resume }), config);
    const thread = join(dir, "rejected.json");
    writeFileSync(thread, JSON.stringify({ id: "rejected", messages }));
    const rules = join(dir, "rules-reject.json");
    writeFileSync(rules, JSON.stringify(RULES));

    const io = captureIo();
    expect(
      await runCli(["eval", thread, "--policy", rules, "--context", '{"role":"teller"}', "--workers", "1"], io),
    ).toBe(0);
    expect(io.stderr()).not.toContain("not reproduced");
  });

  it("puts the policy right after the runaway guard in the default stack", async () => {
    const thread = join(dir, "empty.json");
    writeFileSync(thread, JSON.stringify([{ type: "human", content: "hi" }]));
    const rules = join(dir, "rules2.json");
    writeFileSync(rules, JSON.stringify(RULES));
    const io = captureIo();
    await runCli(["inspect", thread, "--policy", rules, "--json"], io);
    expect((JSON.parse(io.stdout()) as { guards: string[] }).guards.slice(0, 2)).toEqual([
      "RunawayGuardMiddleware",
      "PolicyGuardMiddleware",
    ]);
  });

  it("bad rules and a bad context fail with exit code 2 and say where", async () => {
    const rules = join(dir, "bad.json");
    writeFileSync(rules, JSON.stringify({ rules: [{ id: "x", decision: "deny", tool: "pay" }] }));
    const io = captureIo();
    expect(await runCli(["eval", rules, "--policy", rules], io)).toBe(2);
    expect(io.stderr()).toContain('option "policy.rules[0].reason"');
    const good = join(dir, "good.json");
    writeFileSync(good, JSON.stringify(RULES));
    const badContext = captureIo();
    expect(await runCli(["eval", good, "--policy", good, "--context", "[1]"], badContext)).toBe(2);
    expect(badContext.stderr()).toContain("--context takes a JSON object");
    const orphan = captureIo();
    expect(await runCli(["eval", good, "--context", "{}"], orphan)).toBe(2);
    expect(orphan.stderr()).toContain("--context belongs to --policy");
  });
});

/** A stack of the policy guard alone (the loop guards would add their own decisions). */
function writeConfig(): string {
  const file = join(dir, "config.json");
  writeFileSync(
    file,
    JSON.stringify({ guards: { LoopGuardMiddleware: { observeOnly: true, warnAt: 100, stopAt: 100 } } }),
  );
  return file;
}
