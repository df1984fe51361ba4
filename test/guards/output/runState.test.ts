import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import {
  runStart,
  runStateOf,
  trailingToolBatchStart,
  type RunStateSettings,
} from "../../../src/guards/output/runState.js";
import { decideWriteCall } from "../../../src/guards/output/writeGate.js";

const GUARD = "OutputValidatorMiddleware";
let next = 0;

function call(name: string) {
  const id = `c${next++}`;
  return { ai: new AIMessage({ content: "", tool_calls: [{ id, name, args: {} }] }), id, name };
}

type Outcome = "valid" | "fail_closed" | "degrade" | "blocked" | "tool_error" | "other_guard";

function answer(name: string, outcome: Outcome): [AIMessage, ToolMessage] {
  const c = call(name);
  const base = { tool_call_id: c.id, name };
  const marks: Record<Outcome, Record<string, unknown> | undefined> = {
    valid: undefined,
    tool_error: undefined,
    fail_closed: { guard: GUARD, action: "directive", reason: "r", outcome: "invalid_output", mode: "fail_closed" },
    degrade: { guard: GUARD, action: "directive", reason: "r", outcome: "invalid_output", mode: "degrade" },
    blocked: { guard: GUARD, action: "directive", reason: "safe_mode", outcome: "blocked" },
    other_guard: { guard: "LoopGuardMiddleware", action: "directive" },
  };
  const mark = marks[outcome];
  return [
    c.ai,
    new ToolMessage({
      ...base,
      content: "x",
      status: outcome === "valid" ? "success" : "error",
      response_metadata: mark ? { harness_kit: mark } : {},
    }),
  ];
}

function settings(killSwitch = { window: 4, minInvalid: 2 }): RunStateSettings {
  return { guard: GUARD, isChecked: (tool) => tool !== "unchecked", killSwitch };
}

describe("runStateOf", () => {
  it("enters safe mode on a degraded output and leaves it on a valid output of the same tool", () => {
    const degraded = [new HumanMessage("go"), ...answer("get_plan", "degrade"), ...answer("get_user", "valid")];
    expect(runStateOf(degraded, settings()).degradedTools).toEqual(["get_plan"]);
    const recovered = [...degraded, ...answer("get_plan", "valid")];
    expect(runStateOf(recovered, settings()).degradedTools).toEqual([]);
  });

  it("does not leave safe mode on a valid output of a call made beside the degraded one", () => {
    // Parallel calls land in the order the model listed them, which must not decide safe mode.
    const ai = new AIMessage({
      content: "",
      tool_calls: [
        { id: "bad", name: "get_plan", args: { id: 1 } },
        { id: "good", name: "get_plan", args: { id: 2 } },
      ],
    });
    const degradeMark = { guard: GUARD, action: "directive", reason: "r", outcome: "invalid_output", mode: "degrade" };
    const bad = new ToolMessage({
      tool_call_id: "bad",
      name: "get_plan",
      content: "x",
      status: "error",
      response_metadata: { harness_kit: degradeMark },
    });
    const good = new ToolMessage({ tool_call_id: "good", name: "get_plan", content: "x", status: "success" });
    for (const answers of [
      [bad, good],
      [good, bad],
    ]) {
      const messages = [new HumanMessage("go"), ai, ...answers];
      expect(runStateOf(messages, settings()).degradedTools).toEqual(["get_plan"]);
    }
  });

  it("does not leave safe mode on the degraded tool's own error", () => {
    const messages = [new HumanMessage("go"), ...answer("get_plan", "degrade"), ...answer("get_plan", "tool_error")];
    expect(runStateOf(messages, settings()).degradedTools).toEqual(["get_plan"]);
  });

  it("forgets everything when the user speaks again", () => {
    const messages = [
      new HumanMessage("go"),
      ...answer("a", "degrade"),
      ...answer("b", "fail_closed"),
      ...answer("c", "fail_closed"),
    ];
    expect(runStateOf(messages, settings()).killSwitch).toBeDefined();
    const next = [...messages, new AIMessage("sorry"), new HumanMessage("try again")];
    expect(runStart(next)).toBe(next.length);
    expect(runStateOf(next, settings())).toEqual({ degradedTools: [], instructionSources: [], checked: 0, invalid: 0 });
  });

  it("trips the kill switch at minInvalid within the window and stays tripped for the run", () => {
    const spread = [
      new HumanMessage("go"),
      ...answer("a", "fail_closed"),
      ...answer("a", "valid"),
      ...answer("a", "valid"),
      ...answer("a", "valid"),
      ...answer("a", "fail_closed"),
    ];
    expect(runStateOf(spread, settings()).killSwitch).toBeUndefined();
    const close = [
      new HumanMessage("go"),
      ...answer("a", "fail_closed"),
      ...answer("a", "valid"),
      ...answer("a", "degrade"),
    ];
    expect(runStateOf(close, settings()).killSwitch).toEqual({ invalid: 2, outOf: 3 });
    const later = [
      ...close,
      ...answer("a", "valid"),
      ...answer("a", "valid"),
      ...answer("a", "valid"),
      ...answer("a", "valid"),
    ];
    expect(runStateOf(later, settings()).killSwitch).toEqual({ invalid: 2, outOf: 3 });
  });

  it("counts only checked outputs: not refusals, other guards' answers, tool errors or unchecked tools", () => {
    const messages = [
      new HumanMessage("go"),
      ...answer("a", "blocked"),
      ...answer("a", "other_guard"),
      ...answer("a", "tool_error"),
      ...answer("unchecked", "valid"),
      ...answer("a", "valid"),
    ];
    expect(runStateOf(messages, settings())).toMatchObject({ checked: 1, invalid: 0 });
  });

  it("matches a direct count over any sequence of outcomes", () => {
    const outcomes: Outcome[] = ["valid", "fail_closed", "degrade", "blocked", "tool_error", "other_guard"];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...outcomes), { maxLength: 30 }),
        fc.integer({ min: 1, max: 6 }),
        (seq, window) => {
          const minInvalid = Math.ceil(window / 2);
          const messages = [new HumanMessage("go"), ...seq.flatMap((o) => answer("a", o))];
          const state = runStateOf(messages, settings({ window, minInvalid }));
          const judged = seq
            .filter((o) => o === "valid" || o === "fail_closed" || o === "degrade")
            .map((o) => o !== "valid");
          expect(state.checked).toBe(judged.length);
          expect(state.invalid).toBe(judged.filter(Boolean).length);
          const trips = judged.some(
            (_, i) => judged.slice(Math.max(0, i - window + 1), i + 1).filter(Boolean).length >= minInvalid,
          );
          expect(state.killSwitch !== undefined).toBe(trips);
          const lastDegrade = seq.lastIndexOf("degrade");
          expect(state.degradedTools.length === 1).toBe(lastDegrade >= 0 && !seq.slice(lastDegrade).includes("valid"));
        },
      ),
    );
  });

  it("can judge a prefix of the history", () => {
    const messages = [new HumanMessage("go"), ...answer("a", "fail_closed"), ...answer("a", "fail_closed")];
    expect(runStateOf(messages, settings(), trailingToolBatchStart(messages)).killSwitch).toBeUndefined();
    expect(runStateOf(messages, settings()).killSwitch).toBeDefined();
  });
});

describe("decideWriteCall", () => {
  it("allows writes outside safe mode", () => {
    expect(decideWriteCall("send", { degradedTools: [], instructionSources: [], checked: 3, invalid: 0 }).action).toBe(
      "allow",
    );
  });

  it("refuses writes in safe mode, naming the tool to fix", () => {
    const decision = decideWriteCall("send", {
      degradedTools: ["get_plan"],
      instructionSources: [],
      checked: 1,
      invalid: 1,
    });
    expect(decision).toMatchObject({
      action: "directive",
      reason: "safe_mode: get_plan returned invalid output in this run",
    });
    if (decision.action === "directive") expect(decision.message).toMatch(/"get_plan"/);
  });

  it("refuses writes after the kill switch, whatever safe mode says", () => {
    const decision = decideWriteCall("send", {
      degradedTools: [],
      instructionSources: [],
      checked: 6,
      invalid: 5,
      killSwitch: { invalid: 5, outOf: 10 },
    });
    expect(decision.action === "directive" && decision.reason).toMatch(/^kill_switch: 5 of the last 10/);
  });
});

describe("trailingToolBatchStart", () => {
  it("finds the answers of the last tool step", () => {
    const [ai, tool] = answer("a", "valid");
    expect(trailingToolBatchStart([new HumanMessage("go"), ai, tool])).toBe(2);
    expect(trailingToolBatchStart([new HumanMessage("go")])).toBe(1);
  });
});
