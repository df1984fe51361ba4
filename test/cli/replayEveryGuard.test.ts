import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/cli.js";
import { buildReplaySetup } from "../../src/replay/config.js";
import { replayThread } from "../../src/replay/replayThread.js";
import { parseThread } from "../../src/replay/threads.js";
import { captureIo } from "./io.js";
import { tempFiles } from "../helpers/tempFiles.js";

const { dir, write } = tempFiles("hk-cli-every-");

/** The same search, answered the same way, `n` times in a row. */
function sameSearch(n: number): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [{ type: "human", content: "find it" }];
  for (let k = 1; k <= n; k++) {
    messages.push({
      type: "ai",
      content: "",
      tool_calls: [{ id: `s${k}`, name: "search", args: { q: "x" }, type: "tool_call" }],
    });
    messages.push({ type: "tool", tool_call_id: `s${k}`, name: "search", content: "3 results for x" });
  }
  return messages;
}

describe("replay shows every guard's decision on a call", () => {
  it("an inner guard's judgement of a call an outer guard answered is reported, marked shadowed, and left out of the totals", async () => {
    const { messages } = parseThread(sameSearch(8));
    const setup = buildReplaySetup({
      guards: { ProgressAwareLoopGuardMiddleware: {}, LoopGuardMiddleware: { warnAt: 3, stopAt: 4 } },
    });
    const { decisions } = await replayThread(messages, setup.stack);
    const onFourth = decisions.filter((d) => d.toolCallId === "s4");
    expect(onFourth.map((d) => [d.guard, d.action, d.shadowedBy])).toEqual([
      ["ProgressAwareLoopGuardMiddleware", "directive", undefined],
      ["LoopGuardMiddleware", "stop", "ProgressAwareLoopGuardMiddleware"],
    ]);

    const io = captureIo();
    const config = write("config.json", {
      guards: { ProgressAwareLoopGuardMiddleware: {}, LoopGuardMiddleware: { warnAt: 3, stopAt: 4 } },
    });
    expect(await runCli(["inspect", write("same.json", sameSearch(8)), "--config", config, "--json"], io)).toBe(0);
    const report = JSON.parse(io.stdout()) as {
      rows: Array<{ decisions: Array<{ guard: string; shadowedBy?: string }> }>;
    };
    expect(report.rows[3]!.decisions).toEqual([
      expect.objectContaining({ guard: "ProgressAwareLoopGuardMiddleware" }),
      expect.objectContaining({ guard: "LoopGuardMiddleware", shadowedBy: "ProgressAwareLoopGuardMiddleware" }),
    ]);

    const totals = captureIo();
    await runCli(["eval", write("same-again.json", sameSearch(8)), "--config", config], totals);
    const loopRow = totals
      .stdout()
      .split("\n")
      .find((line) => line.startsWith("LoopGuardMiddleware"))!;
    // The progress guard answers the 3rd call and every later one: none of LoopGuard's judgements acts.
    expect(loopRow.trim().split(/\s+/).slice(1, 4)).toEqual(["0", "0", "0"]);
  });

  it("the default stack replays the runaway guard too", () => {
    expect(buildReplaySetup().stack.map(({ guard }) => guard.name)).toContain("RunawayGuardMiddleware");
  });
});

describe("the CLI says when there is nothing to judge", () => {
  it("eval of an empty folder warns and fails", async () => {
    const empty = join(dir, "empty-folder");
    mkdirSync(empty);
    const io = captureIo();
    expect(await runCli(["eval", empty], io)).toBe(1);
    expect(io.stderr()).toMatch(/warning: no thread found in .*empty-folder/);
  });

  it("a thread holding [] is replayed with a warning", async () => {
    const file = write("nothing.json", "[]");
    const evalIo = captureIo();
    expect(await runCli(["eval", file], evalIo)).toBe(0);
    expect(evalIo.stderr()).toMatch(/warning: .*nothing\.json: the thread has no messages/);
    const inspectIo = captureIo();
    expect(await runCli(["inspect", file], inspectIo)).toBe(0);
    expect(inspectIo.stderr()).toMatch(/the thread has no messages/);
  });

  it("--version prints the package version", async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as {
      version: string;
    };
    for (const flag of ["--version", "-V"]) {
      const io = captureIo();
      expect(await runCli([flag], io)).toBe(0);
      expect(io.stdout()).toBe(`harness-kit ${version}\n`);
    }
  });
});
