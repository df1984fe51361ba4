import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/cli.js";
import { loadReplayConfig } from "../../src/replay/config.js";
import { buildReplaySetup } from "../../src/replay/config.js";
import { measureThread } from "../../src/replay/measureThread.js";
import { replayThread } from "../../src/replay/replayThread.js";
import { simulateUsage } from "../../src/replay/simulateUsage.js";
import { loadThreadFile } from "../../src/replay/sources.js";
import { capTally, halfOf, peakRunTokens } from "../../src/replay/suggest.js";
import { captureIo } from "./io.js";
import { tempFiles } from "../helpers/tempFiles.js";

// `eval --suggest` end to end on a few saved threads: successful runs search a few flights and
// book one; failed runs either retry the same failing booking over and over or keep searching
// far longer than any successful run. The suggestion is written as a --config file that eval
// then replays, and that replay must stop exactly what the suggestion said it would.

const { dir, write } = tempFiles("hk-suggest-");

type Dict = Record<string, unknown>;

/** A thread: `searches` distinct searches (each result `resultChars` long), then `retries` of one failing booking. */
function thread(id: string, searches: number, retries: number, resultChars = 2_000): Dict {
  const messages: Dict[] = [
    { type: "system", content: "You book flights." },
    { type: "human", content: "Book me a flight from JFK to SFO." },
  ];
  let n = 0;
  const call = (name: string, args: Dict, result: string) => {
    const callId = `${id}-tc${n++}`;
    messages.push({ type: "ai", content: "", tool_calls: [{ id: callId, name, args, type: "tool_call" }] });
    messages.push({ type: "tool", tool_call_id: callId, name, content: result });
  };
  for (let k = 0; k < searches; k++)
    call("search_flights", { date: `2024-05-${10 + k}` }, `flights on day ${k}: ${"HAT".repeat(resultChars / 3)}${k}`);
  for (let k = 0; k < retries; k++) call("book_reservation", { flight: "HAT001" }, "Error: the flight is full");
  messages.push({ type: "ai", content: retries > 0 ? "I could not book it." : "Booked." });
  return { id, messages };
}

// Six tasks of two trials each: the trials of a task share its half under --holdout.
const THREADS: [string, Dict, boolean][] = [
  ["task1-trial0", thread("task1-trial0", 3, 0), true],
  ["task1-trial1", thread("task1-trial1", 4, 1), true],
  ["task2-trial0", thread("task2-trial0", 5, 0), true],
  ["task2-trial1", thread("task2-trial1", 2, 8), false],
  ["task3-trial0", thread("task3-trial0", 3, 1), true],
  ["task3-trial1", thread("task3-trial1", 30, 0, 6_000), false],
  ["task4-trial0", thread("task4-trial0", 4, 0), true],
  ["task4-trial1", thread("task4-trial1", 3, 9), false],
  ["task5-trial0", thread("task5-trial0", 2, 0), true],
  ["task5-trial1", thread("task5-trial1", 25, 0, 6_000), false],
  ["task6-trial0", thread("task6-trial0", 5, 1), true],
  ["task6-trial1", thread("task6-trial1", 4, 10), false],
];
for (const [id, value] of THREADS) write(`threads/${id}.json`, value);
const threadsDir = join(dir, "threads");
// The index form of ../shared/evaldata/index.json, keyed by path; the flat form, keyed by id.
const indexFile = write("index.json", {
  threads: THREADS.map(([id, , ok]) => ({ thread: `threads/${id}`, outcome: { reward: ok ? 1 : 0 } })),
});
const flatFile = write(
  "outcomes.json",
  Object.fromEntries(THREADS.map(([id, , ok]) => [id, ok ? "success" : "failure"])),
);

/** The figures of a row of the suggestion's table: failed stopped, of, tokens saved, successful stopped, of. */
function rowOf(
  stdout: string,
  label: string,
): { failedStopped: number; failed: number; saved: number; successfulStopped: number; successful: number } {
  const line = stdout.split("\n").find((l) => l.trimStart().startsWith(label));
  expect(line, `no row "${label}" in:\n${stdout}`).toBeDefined();
  const [failedStopped, failed, saved, , successfulStopped, successful] = [
    ...line!.slice(line!.indexOf(label) + label.length).matchAll(/[\d,]+(?:\.\d+)?/g),
  ].map((m) => Number(m[0].replace(/,/g, "")));
  return {
    failedStopped: failedStopped!,
    failed: failed!,
    saved: saved!,
    successfulStopped: successfulStopped!,
    successful: successful!,
  };
}

describe("harness-kit eval --suggest", () => {
  it("fits the thresholds, says what they stop, and writes a config that eval replays to the same stops", async () => {
    const configFile = join(dir, "suggested.json");
    const io = captureIo();
    expect(
      await runCli(["eval", threadsDir, "--suggest", configFile, "--outcomes", indexFile, "--simulate-usage"], io),
    ).toBe(0);
    const out = io.stdout();
    expect(out).toContain("Fitted on 12 threads (7 successful)");
    const suggested = rowOf(out, "suggested settings");
    expect(suggested).toMatchObject({ failed: 5, successful: 7, successfulStopped: 0 });
    // the retried bookings and the long searches are both stopped
    expect(suggested.failedStopped).toBe(5);
    expect(suggested.saved).toBeGreaterThan(0);

    const config = JSON.parse(readFileSync(configFile, "utf8")) as { guards: Record<string, Record<string, number>> };
    expect(Object.keys(config.guards)).toEqual([
      "RunawayGuardMiddleware",
      "ProgressAwareLoopGuardMiddleware",
      "LoopGuardMiddleware",
    ]);
    expect(() => loadReplayConfig(configFile)).not.toThrow();

    const replay = captureIo();
    expect(await runCli(["eval", threadsDir, "--config", configFile, "--simulate-usage", "--jsonl"], replay)).toBe(0);
    const stops = replay
      .stdoutLines()
      .map((line) => JSON.parse(line) as { thread: string; action: string; reason: string })
      .filter((d) => d.action === "stop");
    const stopped = new Set(stops.map((d) => d.thread));
    const failedIds = THREADS.filter(([, , ok]) => !ok).map(([id]) => id);
    expect([...stopped].sort()).toEqual(failedIds.sort());
    // the long searches meet the token cap; the retried bookings stop earlier, on a runaway or loop signal
    const reasons = new Map(stops.map((d) => [d.thread, d.reason]));
    expect(reasons.get("task3-trial1")).toContain("maxRunTokens");
    expect(reasons.get("task2-trial1")).not.toContain("maxRunTokens");
    // the tokens after the stops, as eval totals them, are the tokens the suggestion said it saves
    expect(replay.stderr()).toContain(`${suggested.saved.toLocaleString("en-US")} tokens`);
  });

  it("measures a plain cap's stops and savings as the runaway guard's maxRunTokens replays them", async () => {
    const loaded = THREADS.map(([id, , ok]) => ({
      id,
      ok,
      messages: simulateUsage(loadThreadFile(join(threadsDir, `${id}.json`)).messages),
    }));
    const measures = await Promise.all(loaded.map((t) => measureThread(t.id, t.ok, t.messages)));
    const peaks = measures.map(peakRunTokens).sort((a, b) => a - b);
    for (const cap of [peaks[3]!, peaks[8]!, peaks.at(-1)! + 1]) {
      const { stack } = buildReplaySetup({
        guards: { RunawayGuardMiddleware: { maxRunTokens: cap, warnAt: 1e6, blockAt: 1e6, stopAt: 1e6 } },
      });
      let stopped = 0;
      let saved = 0;
      for (const t of loaded) {
        const { stops } = await replayThread(t.messages, stack);
        if (stops.length > 0) stopped++;
        saved += stops.reduce((sum, stop) => sum + stop.tokensAfter, 0);
      }
      const tally = capTally(measures, cap);
      expect(tally.successful.stopped + tally.failed.stopped).toBe(stopped);
      expect(tally.successful.tokensAfterStops + tally.failed.tokensAfterStops).toBe(saved);
    }
  });

  it("with --holdout fits on the tasks of one half and scores the other, trials of a task together", async () => {
    const configFile = join(dir, "holdout.json");
    const io = captureIo();
    expect(
      await runCli(
        ["eval", threadsDir, "--suggest", configFile, "--outcomes", flatFile, "--holdout", "--simulate-usage"],
        io,
      ),
    ).toBe(0);
    const fitted = THREADS.filter(([id]) => halfOf(id) === 0);
    const scored = THREADS.filter(([id]) => halfOf(id) === 1);
    expect(fitted.length).toBeGreaterThan(0);
    expect(scored.length).toBeGreaterThan(0);
    expect(io.stdout()).toContain(
      `Fitted on ${fitted.length} threads (${fitted.filter(([, , ok]) => ok).length} successful), the half`,
    );
    const row = rowOf(io.stdout(), "suggested settings");
    expect(row.failed + row.successful).toBe(scored.length);
  });

  it("leaves out threads without an outcome, and needs --outcomes", async () => {
    const partial = write("partial.json", {
      "task1-trial0": true,
      "task2-trial1": { resolved: false },
      "task3-trial1": 0,
    });
    const io = captureIo();
    expect(
      await runCli(["eval", threadsDir, "--suggest", join(dir, "partial-out.json"), "--outcomes", partial], io),
    ).toBe(0);
    expect(io.stderr()).toContain("9 threads without an outcome");
    expect(io.stdout()).toContain("Fitted on 3 threads (1 successful)");

    const usage = captureIo();
    expect(await runCli(["eval", threadsDir, "--suggest", join(dir, "x.json")], usage)).toBe(2);
    expect(usage.stderr()).toContain("--suggest needs --outcomes");
    const stray = captureIo();
    expect(await runCli(["eval", threadsDir, "--holdout"], stray)).toBe(2);
    expect(stray.stderr()).toContain("--holdout belongs to eval --suggest");
  });

  it("says so when no fitted thread succeeded", async () => {
    const failures = write("failures.json", Object.fromEntries(THREADS.map(([id]) => [id, false])));
    const io = captureIo();
    expect(await runCli(["eval", threadsDir, "--suggest", join(dir, "none.json"), "--outcomes", failures], io)).toBe(1);
    expect(io.stderr()).toContain("no successful thread");
  });
});
