import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import {
  AIMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  ToolMessage,
  type BaseMessage,
} from "@langchain/core/messages";
import { runCli } from "../../src/cli/cli.js";
import { progressLine } from "../../src/cli/render.js";
import { captureIo } from "./io.js";
import { tempFiles } from "../helpers/tempFiles.js";

const { dir, write } = tempFiles("hk-cli-");

const ANSI = /\x1b\[/;

/** A failing booking retried with think calls between: the 3rd attempt gets a directive. */
function stuckBooking(prefix: string): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [{ type: "human", content: "book HAT001" }];
  let k = 0;
  const step = (name: string, args: Record<string, unknown>, result: string) => {
    const id = `${prefix}-${k++}`;
    messages.push({ type: "ai", content: "", tool_calls: [{ id, name, args, type: "tool_call" }] });
    messages.push({ type: "tool", tool_call_id: id, name, content: result });
  };
  step("get_user_details", { user_id: "u1" }, '{"name": "Ada"}');
  for (let i = 0; i < 3; i++) {
    step(
      "book_reservation",
      { flight: "HAT001", amount: 299 },
      "Error: payment amount does not add up, total price is 375",
    );
    step("think", { thought: `attempt ${i}` }, "");
  }
  messages.push({ type: "ai", content: "I could not book it." });
  return messages;
}

describe("harness-kit inspect", () => {
  const file = write("stuck.json", { id: "stuck-1", messages: stuckBooking("s") });

  it("prints the observation table with aligned columns and the decision on the row of its call", async () => {
    const io = captureIo();
    expect(await runCli(["inspect", file], io)).toBe(0);
    const lines = io.stdout().split("\n");
    expect(lines[0]).toContain("thread stuck-1");
    const header = lines.find((line) => /^\s*#\s+tool\s+args\s+repeat\s+new\s+status\s+size\s+decision$/.test(line));
    expect(header).toBeDefined();
    const rows = lines.filter((line) => /^\s*\d+\s{2}/.test(line));
    expect(rows).toHaveLength(7);
    // every row's columns start where the header's do
    for (const column of ["tool", "args", "status"]) {
      const at = header!.indexOf(column);
      for (const row of rows) expect(row.slice(at - 2, at)).toBe("  ");
    }
    const third = rows.find((row) => /^\s*5\s/.test(row))!;
    expect(third).toMatch(
      /book_reservation\s+\w{8}\s+2\s+0\.00\s+error\s+\d+\s+directive ProgressAwareLoopGuardMiddleware: "book_reservation" keeps failing/,
    );
    expect(rows.filter((row) => /directive|stop|warn/.test(row))).toHaveLength(1);
    expect(io.stdout()).not.toMatch(ANSI);
  });

  it("colours only on a terminal, and not when NO_COLOR is set", async () => {
    const tty = captureIo({ tty: true });
    await runCli(["inspect", file], tty);
    expect(tty.stdout()).toMatch(ANSI);
    const noColor = captureIo({ tty: true, env: { NO_COLOR: "1" } });
    await runCli(["inspect", file], noColor);
    expect(noColor.stdout()).not.toMatch(ANSI);
  });

  it("--json gives the same table as data", async () => {
    const io = captureIo();
    expect(await runCli(["inspect", file, "--json"], io)).toBe(0);
    const report = JSON.parse(io.stdout()) as { thread: string; toolCalls: number; rows: Array<Record<string, any>> };
    expect(report.thread).toBe("stuck-1");
    expect(report.toolCalls).toBe(7);
    expect(report.rows[5]).toMatchObject({
      callIndex: 5,
      tool: "book_reservation",
      observation: { sameArgsRepeatCount: 2, newInformationDelta: 0, status: "error" },
      // The identical-call guard's judgement of a call the progress guard had already answered is shown too.
      decisions: [
        { guard: "ProgressAwareLoopGuardMiddleware", action: "directive" },
        { guard: "LoopGuardMiddleware", action: "warn", shadowedBy: "ProgressAwareLoopGuardMiddleware" },
      ],
    });
    expect(report.rows[5]!.argsFingerprint).toBe(report.rows[1]!.argsFingerprint);
    expect(report.rows[0]!.decisions).toEqual([]);
  });

  it("shows a call no ToolMessage answers as unanswered", async () => {
    const messages = stuckBooking("u").slice(0, -2); // drop the last think's answer and the final text
    const io = captureIo();
    await runCli(["inspect", write("open.json", messages), "--json"], io);
    const report = JSON.parse(io.stdout()) as { rows: Array<{ observation?: unknown }> };
    expect(report.rows.at(-1)!.observation).toBeUndefined();
  });

  it("a bad file gets one line naming the file and the reason", async () => {
    const bad = write("broken.json", "{ not json");
    const io = captureIo();
    expect(await runCli(["inspect", bad], io)).toBe(1);
    expect(io.stderr().trimEnd().split("\n")).toHaveLength(1);
    expect(io.stderr()).toMatch(new RegExp(`^error: ${escape(bad)}: bad JSON`));
  });
});

describe("harness-kit eval", () => {
  const folder = join(dir, "run");
  const good = write("run/a/good.json", { id: "good-1", messages: stuckBooking("g") });
  const noId = write("run/b/no-id.json", stuckBooking("n"));
  const broken = write("run/b/broken.json", "[{");
  const empty = write("run/c/empty.json", { messages: "none" });
  write("run/c/notes.txt", "ignored: not a .json file");

  it("replays a folder, reports bad files one line each and carries on", async () => {
    const io = captureIo();
    expect(await runCli(["eval", folder], io)).toBe(1);
    const errors = io.stderr().trimEnd().split("\n");
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(new RegExp(`^error: ${escape(broken)}: bad JSON`));
    expect(errors[1]).toMatch(new RegExp(`^error: ${escape(empty)}: no messages array`));
    const out = io.stdout();
    expect(out).toMatch(/threads\s+2\s+\(2 could not be loaded\)/);
    expect(out).toMatch(/tool calls\s+14\n/);
    expect(out).toMatch(/throughput\s+[\d,]+ tool calls\/s/);
    expect(out).toMatch(/ProgressAwareLoopGuardMiddleware\s+0\s+2\s+0\s+0 \(0\.0%\)\s+2 \(100\.0%\)\s+0 \(0\.0%\)/);
    expect(out).toMatch(/LoopGuardMiddleware\s+0\s+0\s+0\s/);
  });

  it("--jsonl prints exactly {thread, toolCallId, tool, guard, action, reason} per decision, the summary to stderr", async () => {
    const io = captureIo();
    await runCli(["eval", good, noId, "--jsonl"], io);
    const lines = io.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    for (const line of lines)
      expect(Object.keys(line)).toEqual(["thread", "toolCallId", "tool", "guard", "action", "reason"]);
    expect(lines.map((l) => l.thread)).toEqual(["good-1", noId]);
    expect(lines[0]).toMatchObject({
      toolCallId: "g-5",
      tool: "book_reservation",
      guard: "ProgressAwareLoopGuardMiddleware",
      action: "directive",
    });
    expect(io.stderr()).toMatch(/threads\s+2\b/);
  });

  it("reads LangChain stored messages and OpenAI chat messages to the same decisions", async () => {
    const dicts = stuckBooking("f");
    const instances: BaseMessage[] = dicts.map((m) =>
      m.type === "human"
        ? new HumanMessage(m.content as string)
        : m.type === "tool"
          ? new ToolMessage({
              content: m.content as string,
              tool_call_id: m.tool_call_id as string,
              name: m.name as string,
            })
          : new AIMessage({ content: m.content as string, tool_calls: (m.tool_calls as never) ?? [] }),
    );
    const openai = dicts.map((m) =>
      m.type === "human"
        ? { role: "user", content: m.content }
        : m.type === "tool"
          ? { role: "tool", tool_call_id: m.tool_call_id, content: m.content }
          : {
              role: "assistant",
              content: m.tool_calls ? null : m.content,
              ...(m.tool_calls
                ? {
                    tool_calls: (m.tool_calls as Array<{ id: string; name: string; args: unknown }>).map((c) => ({
                      id: c.id,
                      type: "function",
                      function: { name: c.name, arguments: JSON.stringify(c.args) },
                    })),
                  }
                : {}),
            },
    );
    const files = [
      write("formats/dicts.json", { id: "t", messages: dicts }),
      write("formats/stored.json", { id: "t", messages: mapChatMessagesToStoredMessages(instances) }),
      write("formats/openai.json", { id: "t", messages: openai }),
    ];
    const outputs = [];
    for (const file of files) {
      const io = captureIo();
      expect(await runCli(["eval", file, "--jsonl"], io)).toBe(0);
      outputs.push(io.stdoutLines());
    }
    expect(outputs[0]).toHaveLength(1);
    expect(outputs[1]).toEqual(outputs[0]);
    expect(outputs[2]).toEqual(outputs[0]);
  });

  it("replays the stack a --config file names, in its order and with its options", async () => {
    const config = write("configs/loop-only.json", { guards: { LoopGuardMiddleware: { warnAt: 2, stopAt: 3 } } });
    const io = captureIo();
    expect(await runCli(["eval", good, "--config", config, "--jsonl"], io)).toBe(0);
    const lines = io.stdoutLines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => [l.guard, l.action])).toEqual([
      ["LoopGuardMiddleware", "warn"],
      ["LoopGuardMiddleware", "stop"],
    ]);
  });

  it("on a terminal, shows a self-overwriting progress line during a long run and clears it", async () => {
    // Each clock reading is 150 ms after the previous one: the run looks long without being long.
    let now = 0n;
    const clock = vi.spyOn(process.hrtime, "bigint").mockImplementation(() => (now += 150_000_000n));
    try {
      for (let i = 0; i < 12; i++)
        write(`long/t${String(i).padStart(2, "0")}.json`, { messages: stuckBooking(`l${i}`) });
      const io = captureIo({ tty: true });
      expect(await runCli(["eval", join(dir, "long")], io)).toBe(0);
      const progress = io
        .stderr()
        .split("\r\x1b[K")
        .filter((part) => part.startsWith("replaying"));
      expect(progress.length).toBeGreaterThan(3);
      expect(progress[0]).toMatch(/^replaying \d+\/12 threads, [\d,]+ tool calls, [\d,]+ calls\/s$/);
      expect(io.stderr().endsWith("\r\x1b[K")).toBe(true);
      expect(io.stdout()).toMatch(/threads\s+12\b/);
    } finally {
      clock.mockRestore();
    }
  });

  it("never writes a progress line when stderr is not a terminal", async () => {
    const io = captureIo();
    await runCli(["eval", folder], io);
    expect(io.stderr()).not.toContain("\r");
    expect(progressLine(3, 10, 1234, 500)).toBe("\r\x1b[Kreplaying 3/10 threads, 1,234 tool calls, 2,468 calls/s");
  });
});

describe("command line and config errors", () => {
  it.each([
    [[], 0, /^Usage:/],
    [["frobnicate"], 2, /unknown command "frobnicate"/],
    [["inspect"], 2, /exactly one thread file/],
    [["eval"], 2, /needs thread files/],
    [["eval", "x.json", "--json"], 2, /--json belongs to inspect/],
    [["inspect", "x.json", "--thread", "t"], 2, /--thread needs --sqlite/],
    [["eval", "--bogus"], 2, /Unknown option '--bogus'/],
  ])("%j exits %i", async (argv, code, message) => {
    const io = captureIo();
    expect(await runCli(argv as string[], io)).toBe(code);
    expect(io.stdout() + io.stderr()).toMatch(message);
  });

  it.each([
    ["bad JSON", "{", /bad JSON/],
    ["an unknown guard", { guards: { NoSuchGuard: {} } }, /guards: Unrecognized key/],
    [
      "a mistyped option",
      { guards: { LoopGuardMiddleware: { stopAt: "five" } } },
      /guards\.LoopGuardMiddleware\.stopAt/,
    ],
    ["an option the middleware rejects", { guards: { LoopGuardMiddleware: { warnAt: 9, stopAt: 5 } } }, /warnAt/],
    ["no guard at all", { guards: {} }, /at least one guard/],
    [
      "a bad volatile pattern",
      { guards: { ProgressAwareLoopGuardMiddleware: { volatilePatterns: ["(unclosed"] } } },
      /volatilePatterns/,
    ],
  ])("a config file with %s is one line naming the file", async (_label, content, message) => {
    const file = write(`configs/bad-${Math.random().toString(36).slice(2)}.json`, content);
    const io = captureIo();
    expect(await runCli(["eval", file, "--config", file], io)).toBe(2);
    expect(io.stderr().trimEnd().split("\n")).toHaveLength(1);
    expect(io.stderr()).toContain(file);
    expect(io.stderr()).toMatch(message);
  });

  it("a missing path is reported and the rest still runs", async () => {
    const good = write("missing/good.json", { messages: stuckBooking("m") });
    const io = captureIo();
    expect(await runCli(["eval", join(dir, "nope"), good], io)).toBe(1);
    expect(io.stderr()).toMatch(/^error: .*nope: no such file or folder\n$/);
    expect(io.stdout()).toMatch(/threads\s+1\s/);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
