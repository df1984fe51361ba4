import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createAgent } from "langchain";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { readMark } from "../../src/core/marks.js";
import { recommendedGuards } from "../../src/index.js";
import { assertToolCallPairing, ScriptedChatModel, type ScriptedTurn } from "../../src/testing/index.js";

/**
 * Issue 11: some OpenAI-compatible servers number tool calls per turn, so `call_0` and `call_1`
 * come back every turn. Through the recommended stack, pairing must stay valid when guards
 * refuse some calls of a batch, and every call must be either run or answered in its place.
 */

interface Call {
  tool: "get_record" | "update_record";
  key: string;
  /** What the tool does with this call: a short answer, an exception, a result over the budget. */
  mode: "ok" | "error" | "large";
}
type Batch = Call[];

/** Guards that answer a call in place of the tool (a refusal or a stop); the others act on results. */
const ANSWERING_GUARDS = new Set(["RunawayGuardMiddleware", "ProgressAwareLoopGuardMiddleware", "LoopGuardMiddleware"]);

// Three keys and few modes: identical calls recur across turns and inside a batch, so the loop guards refuse some.
const callArb: fc.Arbitrary<Call> = fc.record({
  tool: fc.constantFrom("get_record", "get_record", "get_record", "update_record"),
  key: fc.constantFrom("a", "b", "c"),
  mode: fc.constantFrom("ok", "ok", "error", "large"),
});
// A batch the model sends up to 4 times in a row, as a stuck agent does: the loop guards refuse
// and stop. At most 10 tool turns: 2 + 2 × 10 graph steps fit LangGraph's default recursionLimit of 25.
const scriptArb: fc.Arbitrary<Batch[]> = fc
  .array(
    fc.record({ batch: fc.array(callArb, { minLength: 1, maxLength: 3 }), times: fc.integer({ min: 1, max: 4 }) }),
    { minLength: 1, maxLength: 6 },
  )
  .map((steps) => steps.flatMap(({ batch, times }) => Array.from({ length: times }, () => batch)).slice(0, 10));

function result({ key, mode }: { key: string; mode: Call["mode"] }): string {
  if (mode === "error") throw new Error(`record ${key} is locked`);
  return mode === "large" ? `record ${key}: ${"x".repeat(30_000)}` : `record ${key}`;
}

/**
 * Runs `script` and records which calls the tools ran, as "turn:id". Ids are `call_0`, `call_1`,
 * ... every turn, or with `uniqueIds` numbered per turn as most providers do.
 */
async function run(script: Batch[], guarded: boolean, uniqueIds = false) {
  const ran: string[] = [];
  // Unique ids as long as the reused ones (scripts have at most 10 turns), so size estimates agree too.
  const idOf = (turn: number, j: number) => (uniqueIds ? `cal${turn}_${j}` : `call_${j}`);
  const model = new ScriptedChatModel({
    turns: [
      ...script.map((batch, turn): ScriptedTurn => ({
        toolCalls: batch.map((c, j) => ({ name: c.tool, args: { key: c.key, mode: c.mode }, id: idOf(turn, j) })),
      })),
      { text: "done" },
    ],
    onExhausted: "throw",
  });
  const schema = z.object({ key: z.string(), mode: z.enum(["ok", "error", "large"]) });
  const record = (input: { key: string; mode: Call["mode"] }, config: { toolCall?: { id?: string } }) => {
    // Tools run between model calls: the model call that asked for this one is the latest.
    ran.push(`${model.callCount - 1}:${config.toolCall?.id}`);
    return result(input);
  };
  const tools = [
    tool(record, { name: "get_record", description: "read a record", schema }),
    tool(record, { name: "update_record", description: "change a record", schema }),
  ];
  const middleware = guarded ? recommendedGuards().agent : [];
  const { messages } = (await createAgent({ model, tools, middleware }).invoke({
    messages: [new HumanMessage("check the records")],
  })) as {
    messages: BaseMessage[];
  };
  return { messages, ran, idOf };
}

/** Each call the model made, as "turn:id", with the ToolMessage that answered it. */
function answers(messages: readonly BaseMessage[]): Map<string, ToolMessage> {
  const byCall = new Map<string, ToolMessage>();
  let turn = -1;
  for (const message of messages) {
    if (AIMessage.isInstance(message)) turn++;
    if (ToolMessage.isInstance(message)) byCall.set(`${turn}:${message.tool_call_id}`, message);
  }
  return byCall;
}

const answeredInPlace = (message: ToolMessage) => {
  const mark = readMark(message);
  return (
    mark !== undefined && ANSWERING_GUARDS.has(mark.guard) && (mark.action === "directive" || mark.action === "stop")
  );
};

const toolCallsOf = (messages: readonly BaseMessage[]) =>
  messages.filter(AIMessage.isInstance).map((m) => (m.tool_calls ?? []).map((c) => [c.id, c.name, c.args]));

/** Checks one script through the stack; says how many batches the guards refused in part, and whether one stopped the run. */
async function checkStack(script: Batch[]): Promise<{ partial: number; stopped: boolean }> {
  const { messages, ran } = await run(script, true);
  assertToolCallPairing(messages);
  const last = messages.at(-1);
  expect(AIMessage.isInstance(last), "the run ends on an AIMessage").toBe(true);

  const byCall = answers(messages);
  expect(new Set(ran).size, "no call runs twice").toBe(ran.length);
  for (const [call, answer] of byCall) {
    expect(ran.includes(call), `${call}: run, or answered in place by a guard, never both or neither`).toBe(
      !answeredInPlace(answer),
    );
  }

  const stopped = readMark(last)?.action === "stop";
  if (!stopped) {
    // Refusals do not change what a scripted model asks, so a run no guard stopped plays the whole script.
    expect(last?.content).toBe("done");
    expect(toolCallsOf(messages)).toEqual(toolCallsOf((await run(script, false)).messages));
  }
  let partial = 0;
  for (let turn = 0; turn < script.length; turn++) {
    const refused = script[turn]!.filter(
      (_, j) => byCall.get(`${turn}:call_${j}`) && !ran.includes(`${turn}:call_${j}`),
    ).length;
    if (refused > 0 && refused < script[turn]!.length) partial++;
  }
  return { partial, stopped };
}

describe("tool-call ids reused every turn", () => {
  it("a partially refused batch runs its other call, and every call is answered (the case in the issue)", async () => {
    const lookup = (key: string): Call => ({ tool: "get_record", key, mode: "ok" });
    // Turn 2 asks a third time for what turns 0 and 1 got alike: the progress guard refuses call_0; call_1 is new.
    const script = [[lookup("a")], [lookup("a")], [lookup("a"), lookup("b")]];
    const { messages, ran } = await run(script, true);
    assertToolCallPairing(messages);
    expect(ran).toEqual(["0:call_0", "1:call_0", "2:call_1"]);
    expect(answeredInPlace(answers(messages).get("2:call_0")!)).toBe(true);
    expect(messages.at(-1)?.content).toBe("done");
    // Without the stack both calls of turn 2 run.
    expect((await run(script, false)).ran).toEqual(["0:call_0", "1:call_0", "2:call_0", "2:call_1"]);
  });

  it("without the stack every call runs once, the pairing holds and the run ends on the model's answer", async () => {
    await fc.assert(
      fc.asyncProperty(scriptArb, async (script) => {
        const { messages, ran } = await run(script, false);
        assertToolCallPairing(messages);
        expect(ran).toHaveLength(script.flat().length);
        expect(messages.at(-1)?.content).toBe("done");
      }),
      { numRuns: 15 },
    );
  });

  it("through the recommended stack at the default recursionLimit: pairing holds, every call is run or answered in its place, the run ends on an AIMessage", async () => {
    let partialRefusals = 0;
    let stops = 0;
    await fc.assert(
      fc.asyncProperty(scriptArb, async (script) => {
        const { partial, stopped } = await checkStack(script);
        partialRefusals += partial;
        stops += Number(stopped);
      }),
      { numRuns: 60 },
    );
    // The property is only worth its name if the scripts made the guards refuse part of a batch and stop runs.
    expect(partialRefusals).toBeGreaterThan(0);
    expect(stops).toBeGreaterThan(0);
  });

  it("the stack decides the same whether the ids repeat every turn or are unique", async () => {
    // What ran and what answered each call, by turn and position in the batch: ids left out.
    const decisions = async (script: Batch[], uniqueIds: boolean) => {
      const { messages, ran, idOf } = await run(script, true, uniqueIds);
      const byCall = answers(messages);
      return {
        calls: script.map((batch, turn) =>
          batch.map((_, j) => {
            const answer = byCall.get(`${turn}:${idOf(turn, j)}`);
            return answer === undefined
              ? "unasked"
              : ran.includes(`${turn}:${idOf(turn, j)}`)
                ? "ran"
                : `answered by ${readMark(answer)?.guard}`;
          }),
        ),
        end: messages.at(-1)?.content,
      };
    };
    await fc.assert(
      fc.asyncProperty(scriptArb, async (script) => {
        expect(await decisions(script, false)).toEqual(await decisions(script, true));
      }),
      { numRuns: 30 },
    );
  });
});
