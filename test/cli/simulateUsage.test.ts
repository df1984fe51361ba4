import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { runCli } from "../../src/cli/cli.js";
import { simulateUsage } from "../../src/replay/simulateUsage.js";
import { estimatedChars } from "../../src/guards/runaway/ledger.js";
import { captureIo } from "./io.js";
import { tempFiles } from "../helpers/tempFiles.js";

const { write } = tempFiles("hk-usage-");

type Dict = Record<string, unknown>;

/** A search that keeps finding the same thing: `n` calls with the same arguments, as plain message dicts. */
function stuckSearch(n: number, prefix = "s"): Dict[] {
  const messages: Dict[] = [
    { type: "system", content: "You search." },
    { type: "human", content: "find the report" },
  ];
  for (let k = 0; k < n; k++) {
    const id = `${prefix}-${k}`;
    messages.push({
      type: "ai",
      content: "Searching again.",
      tool_calls: [{ id, name: "search", args: { q: "report" }, type: "tool_call" }],
    });
    messages.push({ type: "tool", tool_call_id: id, name: "search", content: "no results for report" });
  }
  return messages;
}

const usageOf = (m: unknown) =>
  (m as { usage_metadata?: { input_tokens: number; output_tokens: number; total_tokens: number } }).usage_metadata;

describe("simulateUsage", () => {
  it("bills each AI message as a provider would: the system tokens plus every message before it in, the message itself out", () => {
    const messageArb = fc.oneof(
      fc.string({ maxLength: 80 }).map((text): Dict => ({ type: "human", content: text })),
      fc.record({ text: fc.string({ maxLength: 80 }), q: fc.string({ maxLength: 40 }) }).map(({ text, q }): Dict => ({
        type: "ai",
        content: text,
        tool_calls: [{ id: q, name: "search", args: { q }, type: "tool_call" }],
      })),
      fc.string({ maxLength: 200 }).map((text): Dict => ({ type: "tool", tool_call_id: "x", content: text })),
    );
    fc.assert(
      fc.property(fc.array(messageArb, { maxLength: 20 }), fc.nat(20_000), (messages, systemTokens) => {
        const billed = simulateUsage(messages as unknown as BaseMessage[], systemTokens);
        expect(billed).toHaveLength(messages.length);
        let before = 0;
        messages.forEach((message, i) => {
          const chars = estimatedChars(message);
          if (message.type === "ai") {
            const input = Math.round(systemTokens + before / 4);
            const output = Math.round(chars / 4);
            expect(usageOf(billed[i])).toEqual({
              input_tokens: input,
              output_tokens: output,
              total_tokens: input + output,
            });
            expect({ ...billed[i], usage_metadata: undefined }).toEqual({ ...message, usage_metadata: undefined });
          } else {
            expect(billed[i]).toBe(message);
          }
          before += chars;
        });
        expect(messages.every((m) => !("usage_metadata" in m))).toBe(true); // the input is left alone
      }),
    );
  });

  it("keeps message instances instances, and leaves a thread with any recorded usage as it is", () => {
    const call = { id: "c1", name: "search", args: { q: "x" }, type: "tool_call" as const };
    const thread: BaseMessage[] = [
      new HumanMessage("go"),
      new AIMessage({ content: "", tool_calls: [call], id: "m1", response_metadata: { model: "m" } }),
      new ToolMessage({ content: "found", tool_call_id: "c1" }),
    ];
    const [, ai] = simulateUsage(thread, 100);
    expect(AIMessage.isInstance(ai)).toBe(true);
    expect(ai).toMatchObject({
      id: "m1",
      tool_calls: [call],
      response_metadata: { model: "m" },
      usage_metadata: { input_tokens: 101 },
    });

    const recorded = [
      ...thread,
      new AIMessage({ content: "done", usage_metadata: { input_tokens: 7, output_tokens: 1, total_tokens: 8 } }),
    ];
    const kept = simulateUsage(recorded, 100);
    expect(kept).toEqual(recorded);
    expect(kept.every((m, i) => m === recorded[i])).toBe(true);
  });
});

describe("harness-kit eval and inspect --simulate-usage", () => {
  const stuck = write("stuck.json", { id: "stuck", messages: stuckSearch(12) });
  // only the runaway guard, so the loop guards' directives do not hide its decisions
  const runawayOnly = write("runaway.json", { guards: { RunawayGuardMiddleware: {} } });

  it("replays the runaway guard with the usage a provider would have reported", async () => {
    const simulated = captureIo();
    expect(await runCli(["eval", stuck, "--config", runawayOnly, "--simulate-usage", "--jsonl"], simulated)).toBe(0);
    const decisions = simulated.stdoutLines().map((line) => JSON.parse(line) as Dict);
    // call k (from 1) reads its predecessor's repeat from call 3 on: warn at 4×, directives at 5× to 7×, a stop at 8×,
    // where the run ends: the recorded calls after it would never have been made
    expect(decisions.map((d) => `${String(d.action)}@${String(d.toolCallId)}`)).toEqual([
      "warn@s-5",
      "directive@s-6",
      "directive@s-7",
      "directive@s-8",
      "stop@s-9",
    ]);
    expect(decisions.every((d) => d.guard === "RunawayGuardMiddleware")).toBe(true);
    expect(String(decisions[0]!.reason)).toMatch(/against a context of 8,\d{3}, from the model's usage_metadata\)/);

    const smaller = captureIo();
    await runCli(
      ["eval", stuck, "--config", runawayOnly, "--simulate-usage", "--system-tokens", "2000", "--jsonl"],
      smaller,
    );
    expect(smaller.stdoutLines()[0]).toMatch(/against a context of 2,\d{3}, from the model's usage_metadata/);

    // Without usage, the guard sees only these short messages, and measures them against its
    // 1,000-token floor: a re-read of 100 tokens is a tenth of one.
    const estimated = captureIo();
    expect(await runCli(["eval", stuck, "--config", runawayOnly, "--jsonl"], estimated)).toBe(0);
    expect(estimated.stdoutLines()).toEqual([]);
  });

  it("replays the runaway guard by default, first in the stack, with the loop guards", async () => {
    const io = captureIo();
    expect(await runCli(["eval", stuck, "--simulate-usage"], io)).toBe(0);
    expect(io.stdout()).toMatch(/\nusage\s+simulated where not recorded: 8,000-token system prompt \+ the history/);
    const rows = io
      .stdout()
      .split("\n")
      .filter((line) => /^\w+Middleware\s/.test(line));
    expect(rows.map((row) => row.split(/\s+/)[0]).sort()).toEqual([
      "LoopGuardMiddleware",
      "ProgressAwareLoopGuardMiddleware",
      "RunawayGuardMiddleware",
    ]);
    // The progress guard refuses the third search and stops the run at the fifth (call 4), as it
    // would live with a model that keeps repeating: the runaway guard's warning would come at the
    // sixth, which the run never makes.
    expect(rows[0]).toMatch(/^RunawayGuardMiddleware\s+0\s+0\s+0\s/);
    expect(rows[1]).toMatch(/^ProgressAwareLoopGuardMiddleware\s+0\s+2\s+1\s/);
    expect(io.stdout()).toMatch(
      /\nstopped\s+1 thread \(100\.0%\); after the stops their runs made 7 model calls and 7 tool calls, [\d,]+ tokens/,
    );
    expect(io.stderr()).toMatch(
      /stop: thread stuck: ProgressAwareLoopGuardMiddleware stops the run at call 4 \(search, message 10\)/,
    );
  });

  it("inspect shows the runaway guard's decisions on the simulated thread", async () => {
    const io = captureIo();
    expect(await runCli(["inspect", stuck, "--config", runawayOnly, "--simulate-usage", "--json"], io)).toBe(0);
    const report = JSON.parse(io.stdout()) as { rows: Array<{ decisions: Array<{ action: string; reason: string }> }> };
    expect(report.rows[5]!.decisions).toEqual([
      expect.objectContaining({ action: "warn", reason: expect.stringMatching(/from the model's usage_metadata/) }),
    ]);
  });

  it.each([
    [["eval", stuck, "--system-tokens", "2000"], /--system-tokens belongs to --simulate-usage/],
    [
      ["eval", stuck, "--simulate-usage", "--system-tokens", "lots"],
      /--system-tokens takes a whole number of tokens, got "lots"/,
    ],
    [["eval", stuck, "--simulate-usage", "--system-tokens", "1.5"], /--system-tokens takes a whole number of tokens/],
  ])("rejects %j", async (argv, message) => {
    const io = captureIo();
    expect(await runCli(argv, io)).toBe(2);
    expect(io.stderr()).toMatch(message);
  });

  it("takes the runaway guard's options from a --config file and refuses bad ones", async () => {
    const strict = write("strict.json", { guards: { RunawayGuardMiddleware: { warnAt: 1, blockAt: 2, stopAt: 3 } } });
    const io = captureIo();
    await runCli(["eval", stuck, "--config", strict, "--simulate-usage", "--jsonl"], io);
    expect(
      io
        .stdoutLines()
        .map((line) => (JSON.parse(line) as Dict).action)
        .slice(0, 3),
    ).toEqual(["warn", "directive", "stop"]);

    for (const bad of [{ stopAt: 0 }, { warnAt: 9 }, { exitBehavior: "end" }, { maxRunTokens: 1.5 }]) {
      const file = write(`bad-${JSON.stringify(bad).replace(/\W/g, "")}.json`, {
        guards: { RunawayGuardMiddleware: bad },
      });
      const err = captureIo();
      expect(await runCli(["eval", stuck, "--config", file], err)).toBe(2);
      expect(err.stderr()).toMatch(new RegExp(`^harness-kit: .*${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`));
    }
  });
});
