import { readFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { createDeepAgent } from "deepagents";
import { HumanMessage } from "@langchain/core/messages";
import { recommendedGuards, SIGNAL_CODES, SIGNAL_EVENT, isSignalCode, type Signal } from "../../src/index.js";
import { PathGuardMiddleware } from "../../src/node.js";
import { assertToolCallPairing, ScriptedChatModel } from "../../src/testing/index.js";
import { rolloutGuardOptions, rolloutScenario } from "./rolloutScenario.js";

const root = mkdtempSync(join(tmpdir(), "hk-codes-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The codes in docs/signals.md's table of signal codes (first column). */
function documentedCodes(): string[] {
  const readme = readFileSync(new URL("../../docs/signals.md", import.meta.url), "utf8");
  const table = readme.slice(readme.indexOf("| `code` | guard | what happened |"));
  const rows = table.slice(0, table.indexOf("\n\n")).split("\n").slice(2);
  return rows.map((row) => /^\| `([a-z0-9_]+)` \|/.exec(row)?.[1] ?? `unparsed: ${row}`);
}

describe("signal codes", () => {
  it("docs/signals.md documents exactly SIGNAL_CODES, once each", () => {
    const documented = documentedCodes();
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...SIGNAL_CODES].sort());
  });

  it("every signal of a run through createAgent carries a documented code, in onSignal and in the custom event alike", async () => {
    const { tools, turns } = rolloutScenario();
    const signals: Signal[] = [];
    const onSignal = (s: Signal) => signals.push(s);
    const guards = recommendedGuards({
      ...rolloutGuardOptions,
      // built outside the stack: it takes its own onSignal
      pathGuard: new PathGuardMiddleware({ roots: [root], baseDir: root, tools: { read_file: true }, onSignal }),
      onSignal,
    });
    const agent = createAgent({ model: new ScriptedChatModel({ turns }), tools, middleware: guards.agent });
    const events: unknown[] = [];
    let messages: unknown[] = [];
    for await (const event of agent.streamEvents(
      { messages: [new HumanMessage("Why is the service down?")] },
      { version: "v2", recursionLimit: 200 },
    )) {
      if (event.event === "on_custom_event" && event.name === SIGNAL_EVENT) events.push(event.data);
      if (event.event === "on_chain_end" && event.name === "LangGraph")
        messages = (event.data.output as { messages: unknown[] }).messages;
    }
    assertToolCallPairing(messages);

    const documented = new Set(documentedCodes());
    for (const signal of signals) {
      expect(isSignalCode(signal.code), JSON.stringify(signal)).toBe(true);
      expect(documented.has(signal.code)).toBe(true);
      expect(signal.code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(signal.reason.length).toBeGreaterThan(0);
    }
    expect(events).toEqual(signals);
    const seen = new Set(signals.map((s) => `${s.guard}:${s.code}`));
    // the scenario reaches every guard of the stack
    for (const expected of [
      "ToolResultBudgetMiddleware:result_offloaded",
      "BinaryReadGuardMiddleware:binary_result",
      "OutputValidatorMiddleware:invalid_output",
      "OutputValidatorMiddleware:safe_mode",
      "PathGuardMiddleware:outside_roots",
      "ToolCallRepairMiddleware:unknown_tool",
      "ToolCallRepairMiddleware:tool_error",
      "ProgressAwareLoopGuardMiddleware:no_progress",
    ]) {
      expect(seen, [...seen].join(", ")).toContain(expected);
    }
  });

  it("the same through createDeepAgent, its subagents' guards included", async () => {
    const { tools, turns } = rolloutScenario();
    const signals: Signal[] = [];
    const guards = recommendedGuards({ ...rolloutGuardOptions, onSignal: (s) => signals.push(s) });
    const model = new ScriptedChatModel({
      turns: [
        { toolCalls: [{ name: "task", args: { description: "look into it", subagent_type: "general-purpose" } }] },
        ...turns,
      ],
    });
    const agent = createDeepAgent({
      model,
      tools: tools.filter((t) => t.name !== "read_file"), // deepagents brings its own
      middleware: guards.deepAgent,
      subagents: [
        { name: "general-purpose", description: "General helper", systemPrompt: "Help.", middleware: guards.subagent },
      ],
    });
    const { messages } = await agent.invoke(
      { messages: [new HumanMessage("Why is the service down?")] },
      { recursionLimit: 300 },
    );
    assertToolCallPairing(messages);
    expect(signals.length).toBeGreaterThan(3);
    const documented = new Set(documentedCodes());
    for (const signal of signals) expect(documented.has(signal.code), JSON.stringify(signal)).toBe(true);
  });
});
