import { describe, expect, it } from "vitest";
import { tool } from "@langchain/core/tools";
import { Command, MemorySaver, interrupt, type BaseCheckpointSaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { z } from "zod";
import { assertToolCallPairing, type ScriptedTurn } from "../../../src/testing/index.js";
import type { OutputValidatorOptions } from "../../../src/guards/output/OutputValidatorMiddleware.js";
import {
  BAD_OUTPUTS,
  VALID_ACCOUNT,
  accountSchema,
  buildHarness,
  harnessMark,
  readAccount,
  run,
  textOf,
  toolMessages,
  writeAccount,
} from "./fixtures.js";

/**
 * Safe mode, the kill switch and stops live in the thread's messages, not in the middleware
 * instance: a fresh agent (new model, new middleware, as in another process) that resumes the
 * thread from the same checkpointer must decide exactly as the first one would have.
 */

const askHuman = tool(async () => `human says ${String(interrupt("approve?"))}`, {
  name: "ask_human",
  description: "Asks the user.",
  schema: z.object({}),
});
const ask = { name: "ask_human", args: {} };

function processes(checkpointer: BaseCheckpointSaver, validator: OutputValidatorOptions, outputs: string[]) {
  const thread = { configurable: { thread_id: `thread-${Math.random()}` } };
  return {
    first: (turns: ScriptedTurn[]) => buildHarness({ turns, outputs, validator, checkpointer, extraTools: [askHuman] }),
    second: (turns: ScriptedTurn[]) =>
      buildHarness({ turns, outputs: [VALID_ACCOUNT], validator, checkpointer, extraTools: [askHuman] }),
    thread,
  };
}

const SAVERS: Record<string, () => BaseCheckpointSaver> = {
  MemorySaver: () => new MemorySaver(),
  SqliteSaver: () => SqliteSaver.fromConnString(":memory:"),
};

const degrade: OutputValidatorOptions = { tools: { get_account: { schema: accountSchema, onInvalid: "degrade" } } };

describe.each(Object.keys(SAVERS))("a thread resumed by a fresh agent (%s)", (saver) => {
  it("stays in safe mode until the run ends, then writes again", async () => {
    const { first, second, thread } = processes(SAVERS[saver]!(), degrade, [BAD_OUTPUTS.schema_invalid]);
    const a = first([{ toolCalls: [readAccount] }, { toolCalls: [ask] }]);
    const paused = await a.agent.invoke({ messages: [{ role: "user", content: "raise seats" }] }, thread);
    expect(paused.__interrupt__).toBeDefined();

    const b = second([
      { toolCalls: [writeAccount] },
      { text: "could not" },
      { toolCalls: [writeAccount] },
      { text: "done" },
    ]);
    const resumed = await b.agent.invoke(new Command({ resume: "yes" }), thread);
    assertToolCallPairing(resumed.messages);
    expect(b.writes).toEqual([]);
    expect(textOf(toolMessages(resumed.messages).at(-1))).toMatch(
      /safe mode because "get_account" returned invalid output/,
    );
    expect(b.signals.map((s) => s.reason)).toEqual(["safe_mode: get_account returned invalid output in this run"]);

    await run(b, "just write it", thread);
    expect(b.writes).toEqual([writeAccount.args]);
  });

  it("ends the run when the stop was decided in the first process and the batch finished in the second", async () => {
    const stop: OutputValidatorOptions = { tools: { get_account: { schema: accountSchema, stopRun: true } } };
    const { first, second, thread } = processes(SAVERS[saver]!(), stop, [BAD_OUTPUTS.error_in_payload]);
    const a = first([{ toolCalls: [readAccount, ask] }]);
    await a.agent.invoke({ messages: [{ role: "user", content: "check" }] }, thread);
    expect(a.signals.map((s) => s.action)).toEqual(["stop"]);

    const b = second([{ toolCalls: [writeAccount] }]);
    const resumed = await b.agent.invoke(new Command({ resume: "ok" }), thread);
    assertToolCallPairing(resumed.messages);
    expect(b.model.callCount).toBe(0);
    expect(harnessMark(resumed.messages.at(-1))).toMatchObject({ stopReason: "invalid_tool_output" });
  });

  it("trips the kill switch once, in the process that finished the tripping batch", async () => {
    const killSwitch: OutputValidatorOptions = { killSwitch: { window: 4, threshold: 0.5 } };
    const { first, second, thread } = processes(SAVERS[saver]!(), killSwitch, [
      BAD_OUTPUTS.oversized,
      BAD_OUTPUTS.html_instead_of_json,
    ]);
    const a = first([{ toolCalls: [readAccount] }, { toolCalls: [readAccount, ask] }]);
    await a.agent.invoke({ messages: [{ role: "user", content: "check" }] }, thread);
    expect(a.signals.filter((s) => s.reason.startsWith("kill_switch"))).toEqual([]);

    const b = second([{ toolCalls: [readAccount] }, { toolCalls: [writeAccount] }, { text: "done" }]);
    const resumed = await b.agent.invoke(new Command({ resume: "ok" }), thread);
    assertToolCallPairing(resumed.messages);
    expect(b.writes).toEqual([]);
    expect(b.signals.filter((s) => s.reason.startsWith("kill_switch")).map((s) => s.action)).toEqual([
      "warn",
      "directive",
    ]);
  });
});
