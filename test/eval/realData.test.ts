import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildReplaySetup } from "../../src/replay/config.js";
import { replayThread, type ReplayedDecision } from "../../src/replay/replayThread.js";
import { loadThreadFile } from "../../src/replay/sources.js";

// The requirements of issues 3 and 13 on the recorded third-party runs. The data lives outside the
// repository (../shared/evaldata); without it these tests are skipped.
const EVALDATA = join(import.meta.dirname, "..", "..", "..", "shared", "evaldata");
if (!existsSync(EVALDATA)) console.log(`test/eval/realData.test.ts skipped: the recorded runs are not at ${EVALDATA}`);

interface Episode {
  thread: string;
  kind: string;
  calls: string[];
  reason: string;
}

const episodes = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "fixtures", "loop-episodes.json"), "utf8"),
) as {
  stuck: Episode[];
  legitimate: Episode[];
};

const cache = new Map<string, ReplayedDecision[]>();

/** Decisions of the default stack, both loop guards with default options, on one recorded thread. */
async function decisionsOn(thread: string): Promise<ReplayedDecision[]> {
  let decisions = cache.get(thread);
  if (!decisions) {
    const { messages } = loadThreadFile(join(EVALDATA, "threads", `${thread}.json`));
    // What the stack does live: judgements of calls an outer guard already answered are left out.
    decisions = (await replayThread(messages, buildReplaySetup().stack)).decisions.filter(
      (d) => !d.shadowedBy && !d.afterStop,
    );
    cache.set(thread, decisions);
  }
  return decisions;
}

const intervenes = (d: ReplayedDecision) => d.action === "directive" || d.action === "stop";

describe.runIf(existsSync(EVALDATA))("loop guards on ../shared/evaldata, default options", () => {
  it("the labelled episodes exist in the data, with their calls in order", async () => {
    for (const episode of [...episodes.stuck, ...episodes.legitimate]) {
      const { messages } = loadThreadFile(join(EVALDATA, "threads", `${episode.thread}.json`));
      const ids = messages.flatMap((m) =>
        ((m as { tool_calls?: Array<{ id: string }> }).tool_calls ?? []).map((c) => c.id),
      );
      const positions = episode.calls.map((id) => ids.indexOf(id));
      expect(
        positions.every((p) => p >= 0),
        episode.thread,
      ).toBe(true);
      expect(
        [...positions].sort((a, b) => a - b),
        episode.thread,
      ).toEqual(positions);
    }
    const sources = new Set(episodes.stuck.map((e) => e.thread.split("/")[0]));
    expect(sources.size).toBe(4);
    expect([...episodes.stuck, ...episodes.legitimate].every((e) => e.reason.length > 0)).toBe(true);
  });

  it("answer at least 90% of the stuck episodes with a directive or a stop by their third call", async () => {
    const late: string[] = [];
    for (const episode of episodes.stuck) {
      const decisions = await decisionsOn(episode.thread);
      const firstThree = new Set(episode.calls.slice(0, 3));
      if (!decisions.some((d) => intervenes(d) && firstThree.has(d.toolCallId ?? ""))) late.push(episode.thread);
    }
    expect(late.length / episodes.stuck.length, late.join(", ")).toBeLessThanOrEqual(0.1);
  });

  it("give no legitimate repetition a directive or a stop", async () => {
    const hit: string[] = [];
    for (const episode of episodes.legitimate) {
      const calls = new Set(episode.calls);
      const decisions = (await decisionsOn(episode.thread)).filter(
        (d) => calls.has(d.toolCallId ?? "") && intervenes(d),
      );
      if (decisions.length > 0)
        hit.push(`${episode.thread}: ${decisions.map((d) => `${d.guard} ${d.action} ${d.toolCallId}`).join(", ")}`);
    }
    expect(hit).toEqual([]);
  });

  it("stop at most 0.5% and direct at most 3% of the successful runs", async () => {
    const index = JSON.parse(readFileSync(join(EVALDATA, "index.json"), "utf8")) as {
      threads: Array<{ thread: string; outcome: Record<string, unknown> }>;
    };
    const successful = index.threads.filter((t) => t.outcome.resolved === true || t.outcome.reward === 1);
    expect(successful.length).toBeGreaterThan(400);
    let stopped = 0;
    let directed = 0;
    for (const { thread } of successful) {
      const decisions = await decisionsOn(thread);
      if (decisions.some((d) => d.action === "stop")) stopped++;
      if (decisions.some((d) => d.action === "directive")) directed++;
    }
    expect(stopped / successful.length).toBeLessThanOrEqual(0.005);
    expect(directed / successful.length).toBeLessThanOrEqual(0.03);
  });
});
