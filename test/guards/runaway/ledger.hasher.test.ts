import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { RunawayLedger } from "../../../src/guards/runaway/ledger.js";
import { loadedHasher, loadHasher } from "../../../src/observe/hash.js";

// Its own file, so that nothing has loaded the WebAssembly hasher when the first test runs: a
// guard's first decision in a fresh process must not depend on whether it has.

const usage = { input_tokens: 1000, output_tokens: 10, total_tokens: 1010 };

function thread(): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage("go")];
  const answers = ["page 1", "page 2", "page 2", "page 2", "page 3", "page 3"];
  answers.forEach((answer, i) => {
    const id = `c${i}`;
    messages.push(
      new AIMessage({
        content: "",
        tool_calls: [{ id, name: "read", args: { page: Math.min(i, 3) }, type: "tool_call" }],
        usage_metadata: usage,
      }),
    );
    messages.push(new ToolMessage({ content: answer, tool_call_id: id }));
  });
  messages.push(
    new AIMessage({
      content: "",
      tool_calls: [{ id: "p", name: "read", args: { page: 3 }, type: "tool_call" }],
      usage_metadata: usage,
    }),
  );
  return messages;
}

describe("RunawayLedger before and after the hasher has loaded", () => {
  it("measures the same, and keys calls the same way within one ledger", async () => {
    expect(loadedHasher()).toBeUndefined();
    const before = new RunawayLedger().update(thread());
    const measured = { run: before.measureRun(1), waste: before.measureWaste(1) };
    expect(measured.run.factor).toBeGreaterThan(0);
    expect(before.answeredInRun(before.callKey({ id: "x", name: "read", args: { page: 3 } }))).toBe(true);
    const messages = thread();
    const switched = new RunawayLedger().update(messages.slice(0, 5));
    const early = switched.measureRun(1);

    await loadHasher();
    expect(loadedHasher()).toBeDefined();
    const after = new RunawayLedger().update(thread());
    expect({ run: after.measureRun(1), waste: after.measureWaste(1) }).toEqual(measured);
    expect(after.answeredInRun(after.callKey({ id: "x", name: "read", args: { page: 3 } }))).toBe(true);

    // a ledger that started without the hasher starts over with it, and still agrees
    expect(new RunawayLedger().update(messages.slice(0, 5)).measureRun(1)).toEqual(early);
    expect(switched.update(messages).measureRun(1)).toEqual(measured.run);
    expect(switched.answeredInRun(switched.callKey({ id: "x", name: "read", args: { page: 1 } }))).toBe(true); // answered before the switch
  });
});
