import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { isSignalCode, recommendedGuards, type Signal } from "../../src/index.js";
import { PathGuardMiddleware } from "../../src/node.js";
import { ScriptedChatModel } from "../../src/testing/index.js";
import { rolloutGuardOptions, rolloutScenario } from "./rolloutScenario.js";

const root = mkdtempSync(join(tmpdir(), "hk-observe-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What a model reads of a message: ids (unique per run) left out. */
function asModelSees(message: BaseMessage) {
  const m = message as BaseMessage & { tool_calls?: Array<{ name: string; args: unknown }>; status?: string };
  return {
    type: m.getType(),
    // LangChain quotes a failed tool's stack trace; its frames name whoever called the tool
    content: typeof m.content === "string" ? m.content.replace(/^ +at .*$/gm, "at …") : m.content,
    ...(m.tool_calls?.length ? { toolCalls: m.tool_calls.map((c) => ({ name: c.name, args: c.args })) } : {}),
    ...(m.status ? { status: m.status } : {}),
  };
}

async function runScenario(middleware: "none" | "observe" | "enforce") {
  const { tools, turns, calls } = rolloutScenario();
  const model = new ScriptedChatModel({ turns });
  const signals: Signal[] = [];
  const onSignal = (s: Signal) => signals.push(s);
  const pathGuard = new PathGuardMiddleware({
    roots: [root],
    baseDir: root,
    tools: { read_file: true },
    observeOnly: middleware === "observe",
    onSignal,
  });
  const guards = recommendedGuards({
    ...rolloutGuardOptions,
    pathGuard,
    observeOnly: middleware === "observe",
    onSignal,
  });
  const agent = createAgent({ model, tools, middleware: middleware === "none" ? [] : guards.agent });
  await agent.invoke({ messages: [new HumanMessage("Why is the service down?")] }, { recursionLimit: 200 });
  return { seen: model.seen.map((messages) => messages.map(asModelSees)), offered: model.toolBindings, calls, signals };
}

describe("recommendedGuards({ observeOnly: true }) through createAgent", () => {
  it("changes nothing the model or the tools see, and every guard still signals what it would have done", async () => {
    const bare = await runScenario("none");
    const observed = await runScenario("observe");
    const enforced = await runScenario("enforce");

    expect(observed.seen).toEqual(bare.seen); // every request, message by message
    expect(observed.offered).toEqual(bare.offered); // no extra tool offered (read_stored_result included)
    expect(observed.calls).toEqual(bare.calls); // every tool ran, with the model's arguments

    // enforcing the same stack does change them: the comparison above can fail
    expect(enforced.seen).not.toEqual(bare.seen);
    expect(enforced.calls.length).toBeLessThan(bare.calls.length);

    const guards = new Set(observed.signals.map((s) => s.guard));
    for (const guard of [
      "ToolResultBudgetMiddleware",
      "BinaryReadGuardMiddleware",
      "OutputValidatorMiddleware",
      "PathGuardMiddleware",
      "ToolCallRepairMiddleware",
      "ProgressAwareLoopGuardMiddleware",
    ]) {
      expect(guards, [...guards].join(", ")).toContain(guard);
    }
    for (const signal of [...observed.signals, ...enforced.signals])
      expect(isSignalCode(signal.code), JSON.stringify(signal)).toBe(true);
    for (const signal of observed.signals) expect(signal.detail?.observeOnly, JSON.stringify(signal)).toBe(true);
  });

  it("a guard's own observeOnly: false enforces that guard alone", async () => {
    const { tools, turns, calls } = rolloutScenario();
    const guards = recommendedGuards({
      ...rolloutGuardOptions,
      observeOnly: true,
      binaryGuard: { observeOnly: false },
    });
    const model = new ScriptedChatModel({ turns });
    const agent = createAgent({ model, tools, middleware: guards.agent });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 200 });
    const answers = messages.filter((m) => m.getType() === "tool").map((m) => String(m.content));
    expect(answers.some((a) => /PNG/.test(a) && /(OCR|extract)/i.test(a))).toBe(true); // the binary guard acted
    expect(calls.filter((c) => c.tool === "job_status")).toHaveLength(9); // the loop guards only watched
  });
});
