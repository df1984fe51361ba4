import { describe, expect, it } from "vitest";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { RAN_KEY, withMark, wouldBeRefusalsOf } from "../../src/core/marks.js";
import { probedRequest, recordWouldBeRefusal, stampRan } from "../../src/core/ranStamps.js";

function lookupTool() {
  return tool(async ({ key }: { key: string }) => `value of ${key}`, {
    name: "lookup",
    description: "look a key up",
    schema: z.object({ key: z.string() }),
  });
}

describe("probedRequest", () => {
  it("gives each call of one tool its own probe: parallel calls do not share what ran", async () => {
    const lookup = lookupTool();
    const first = probedRequest({ toolCall: { name: "lookup" }, tool: lookup });
    const second = probedRequest({ toolCall: { name: "lookup" }, tool: lookup });
    expect(first.probe).not.toBe(second.probe);

    const tool1 = first.request.tool as typeof lookup;
    expect(await tool1.invoke({ key: "a" })).toBe("value of a");
    expect(first.probe.ran).toBe(true);
    expect(second.probe.ran).toBe(false);

    // A middleware after the guards reads the tool's name on the way: only that call's probe notes it.
    expect((second.request.tool as typeof lookup).name).toBe("lookup");
    expect(second.probe.passedOn).toBe(true);
    expect(first.probe.passedOn).toBe(false);
  });

  it("hands an inner guard the outer guard's probe, and the tool's other members stay readable", () => {
    const lookup = lookupTool();
    const outer = probedRequest({ toolCall: { name: "lookup" }, tool: lookup });
    const inner = probedRequest(outer.request);
    expect(inner.probe).toBe(outer.probe);
    expect(inner.request.tool).toBe(outer.request.tool);
    expect((outer.request.tool as typeof lookup).description).toBe("look a key up");
    expect(outer.probe.passedOn).toBe(false);
  });

  it("counts arguments the tool's schema refused as not run", async () => {
    const { request, probe } = probedRequest({ toolCall: { name: "lookup" }, tool: lookupTool() });
    await expect((request.tool as ReturnType<typeof lookupTool>).invoke({ key: 3 } as never)).rejects.toThrow();
    expect(probe.ran).toBe(false);
  });

  it("reads from the answer whether a tool LangChain looked up by name ran", () => {
    const request: { toolCall: { name: string }; tool?: unknown } = { toolCall: { name: "lookup" } };
    const probed = probedRequest(request);
    expect(probed.request).toBe(request);
    expect(probed.probe.ran).toBe(false);
    const stamped = (message: ToolMessage) => stampRan(message, probed.probe, "c1").response_metadata[RAN_KEY];
    // What a reviewer's edit into another tool gets back: the tool ran.
    expect(stamped(new ToolMessage({ content: "value of a", tool_call_id: "c1", name: "lookup" }))).toBe(true);
    // LangChain's own answer when no tool has that name.
    const notFound = new ToolMessage({
      content: "Error: lookup is not a valid tool, try one of [search].",
      tool_call_id: "c1",
      name: "lookup",
      status: "error",
    });
    expect(stamped(notFound)).toBe(false);
    // A guard that answered in its place.
    const refused = new ToolMessage({
      content: "refused",
      tool_call_id: "c1",
      status: "error",
      response_metadata: withMark(undefined, { guard: "PathGuardMiddleware", action: "directive" }),
    });
    expect(stamped(refused)).toBe(false);
  });
});

describe("stampRan and recordWouldBeRefusal on a tool's Command", () => {
  const commandWith = () => {
    const own = new ToolMessage({ content: "done", tool_call_id: "c1", name: "update" });
    const other = new ToolMessage({ content: "other", tool_call_id: "c2", name: "update" });
    const plain = { role: "tool", content: "a dict", tool_call_id: "c1" };
    return { own, other, command: new Command({ update: { messages: [own, other, plain], note: "kept" } }) };
  };

  it("stamps only the call's own answer in the update, and hands the Command back as it is", () => {
    const { own, other, command } = commandWith();
    expect(stampRan(command, { ran: true, passedOn: false }, "c1")).toBe(command);
    expect(own.response_metadata[RAN_KEY]).toBe(true);
    expect(RAN_KEY in other.response_metadata).toBe(false);
    expect((command.update as { note: string }).note).toBe("kept");
  });

  it("records an observe-only refusal on the call's own answer only", () => {
    const { own, other, command } = commandWith();
    expect(recordWouldBeRefusal(command, { guard: "LoopGuardMiddleware", action: "directive" }, "c1")).toBe(command);
    expect(wouldBeRefusalsOf(own)).toEqual([{ guard: "LoopGuardMiddleware", action: "directive" }]);
    expect(wouldBeRefusalsOf(other)).toEqual([]);
  });

  it("leaves a Command without messages alone", () => {
    const empty = new Command({ update: { note: "no messages" } });
    expect(stampRan(empty, { ran: true, passedOn: false }, "c1")).toBe(empty);
    expect(recordWouldBeRefusal(empty, { guard: "LoopGuardMiddleware", action: "stop" }, "c1")).toBe(empty);
  });
});
