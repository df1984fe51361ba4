import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/cli.js";
import { bucketLabel } from "../../src/cli/svgCharts.js";
import { ThreadPageNames } from "../../src/cli/threadPageNames.js";
import { FleetTally } from "../../src/replay/fleetTally.js";
import { bucketOf, positionOf } from "../../src/replay/histogram.js";
import type { ReplayResult } from "../../src/replay/replayThread.js";
import { fleetThread } from "../helpers/fleetThreads.js";
import { tempFiles } from "../helpers/tempFiles.js";

const { dir, write } = tempFiles("hk-eval-html-");

const HOSTILE_ID = `<script>alert(1)</script>"'\`../../../etc/passwd`;
const HOSTILE_TOOL = `<img src=x onerror="alert(2)">`;

async function evalHtml(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["eval", ...args], {
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t) },
    env,
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** Every href of a page, decoded, resolved against the page's folder. */
function linkedFiles(page: string): string[] {
  const html = readFileSync(page, "utf8");
  return [...html.matchAll(/href="([^"]*)"/g)].map((m) =>
    resolve(
      dirname(page),
      decodeURIComponent(m[1]!.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))),
    ),
  );
}

describe("harness-kit eval --html", () => {
  it("writes one self-contained page over hostile ids and tool names: no script, a CSP, every text escaped, links to pages it wrote inside its folder", async () => {
    const threads = join(dir, "hostile");
    for (let i = 0; i < 12; i++)
      write(`hostile/t${i}.json`, fleetThread(i, i % 3 === 0 ? { id: HOSTILE_ID, tool: HOSTILE_TOOL } : {}));
    const report = join(dir, "hostile-report.html");
    const { code, stderr } = await evalHtml([threads, "--html", report, "--workers", "1"]);
    expect(code).toBe(0);
    const html = readFileSync(report, "utf8");
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'`);
    expect(html).not.toMatch(/<(script|link|img|iframe|object|embed|base)\b|(src|href)="(https?:)?\/\/|@import|url\(/i);
    expect(html).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
    expect((html.match(/<svg /g) ?? []).length).toBe(4);
    // Four threads share the hostile id: each listed one has a page of its own.
    const links = linkedFiles(report);
    expect(links.length).toBeGreaterThan(0);
    const folder = join(dir, "hostile-report-threads");
    for (const file of links) {
      expect(dirname(file)).toBe(folder);
      expect(existsSync(file)).toBe(true);
    }
    const pages = readdirSync(folder);
    expect(pages.every((name) => /^[A-Za-z0-9][A-Za-z0-9._-]*\.html$/.test(name))).toBe(true);
    expect(new Set(links).size).toBe(pages.length);
    expect(pages.filter((name) => name.startsWith("script_alert")).length).toBeGreaterThanOrEqual(2);
    const hostilePage = readFileSync(
      join(
        folder,
        pages.find((name) => name.startsWith("script_alert"))!,
      ),
      "utf8",
    );
    expect(hostilePage).not.toMatch(/<(script|img)\b/i);
    expect(hostilePage).toContain("&#60;img src=x onerror=");
    expect(stderr).toContain(`wrote ${report} and ${pages.length} thread pages beside it`);
  });

  it("draws the thresholds of the options replayed", async () => {
    const threads = join(dir, "plain");
    for (let i = 0; i < 9; i++) write(`plain/t${i}.json`, fleetThread(i));
    const config = write("config.json", {
      guards: { RunawayGuardMiddleware: { warnAt: 3, stopAt: 12 }, LoopGuardMiddleware: { stopAt: 5 } },
    });
    const report = join(dir, "config-report.html");
    expect((await evalHtml([threads, "--html", report, "--config", config, "--workers", "1"])).code).toBe(0);
    const html = readFileSync(report, "utf8");
    expect(html).toContain(">runaway warnAt 3</text>");
    expect(html).toContain(">stopAt 12</text>");
    expect(html).toContain(">loop stopAt 5</text>");
    expect(html).not.toContain("progress stopAt"); // not replayed
  });

  it("splits by outcome, read by thread id or by the path under the threads' folder", async () => {
    const threads = join(dir, "fleet");
    for (let i = 0; i < 10; i++) write(`fleet/batch/t${i}.json`, fleetThread(i));
    // Ids for some, dataset-index paths for others; t9 has no outcome.
    const outcomes = write("outcomes.json", {
      threads: [
        ...[0, 1, 2, 3].map((i) => ({ thread: `fleet-${i}`, outcome: { resolved: true } })),
        ...[4, 5, 6].map((i) => ({ thread: `batch/t${i}`, outcome: { reward: 0 } })),
        { thread: "batch/t7", outcome: { reward: 1 } },
        { thread: "fleet-8", outcome: { mistake_agent: "WebSurfer" } },
      ],
    });
    const report = join(dir, "outcome-report.html");
    expect((await evalHtml([threads, "--html", report, "--outcomes", outcomes, "--workers", "1"])).code).toBe(0);
    const html = readFileSync(report, "utf8");
    expect(html).toContain("successful runs: 5</th>");
    expect(html).toContain("failed runs: 4</th>");
    expect(html).toContain("no outcome given: 1</th>");
    const bad = write("bad-outcomes.json", { "fleet-1": "maybe" });
    const { code, stderr } = await evalHtml([threads, "--html", report, "--outcomes", bad]);
    expect(code).toBe(2);
    expect(stderr).toContain(`the outcome of "fleet-1" is neither success nor failure`);
  });

  it("links threads of a checkpoint database to their pages, hostile ids included", async () => {
    const { SqliteSaver } = await import("@langchain/langgraph-checkpoint-sqlite");
    const { createAgent } = await import("langchain");
    const { tool } = await import("@langchain/core/tools");
    const { z } = await import("zod");
    const { HumanMessage } = await import("@langchain/core/messages");
    const { ScriptedChatModel } = await import("../../src/testing/index.js");
    const db = join(dir, "threads.sqlite");
    const status = tool(async () => "still running", {
      name: "job_status",
      description: "status",
      schema: z.object({ job: z.number() }),
    });
    for (const id of [HOSTILE_ID, "plain-thread"]) {
      const turns = [
        ...Array.from({ length: 6 }, () => ({ toolCalls: [{ name: "job_status", args: { job: 7 } }] })),
        { text: "Still running." },
      ];
      const agent = createAgent({
        model: new ScriptedChatModel({ turns }),
        tools: [status],
        checkpointer: SqliteSaver.fromConnString(db),
      });
      await agent.invoke(
        { messages: [new HumanMessage(`Is job 7 done? ${"Context. ".repeat(600)}`)] },
        { configurable: { thread_id: id } },
      );
    }
    const report = join(dir, "sqlite-report.html");
    expect(
      (await evalHtml(["--sqlite", db, "--html", report, "--workers", "2"], { HARNESS_KIT_REPLAY_HERE: "0" })).code,
    ).toBe(0);
    const links = linkedFiles(report);
    expect(new Set(links).size).toBe(2); // each thread in both rankings, one page each
    for (const file of links) {
      expect(dirname(file)).toBe(join(dir, "sqlite-report-threads"));
      expect(readFileSync(file, "utf8")).toContain('class="entry ');
    }
    expect(readFileSync(report, "utf8")).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
  }, 120_000);

  it("writes the same report and pages with worker threads as with one", async () => {
    const threads = join(dir, "workers");
    for (let i = 0; i < 40; i++)
      write(`workers/t${String(i).padStart(2, "0")}.json`, fleetThread(i, i % 7 === 0 ? { id: HOSTILE_ID } : {}));
    const one = join(dir, "one.html");
    const many = join(dir, "many.html");
    expect((await evalHtml([threads, "--html", one, "--workers", "1"])).code).toBe(0);
    expect((await evalHtml([threads, "--html", many, "--workers", "3"], { HARNESS_KIT_REPLAY_HERE: "0" })).code).toBe(
      0,
    );
    expect(readFileSync(many, "utf8").replaceAll("many-threads", "one-threads")).toBe(readFileSync(one, "utf8"));
    expect(readdirSync(join(dir, "many-threads"))).toEqual(readdirSync(join(dir, "one-threads")));
  }, 120_000);
});

describe("ThreadPageNames", () => {
  it("gives every key a safe, distinct, stable file name, whatever the ids", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ unit: "grapheme" }), fc.string()), { maxLength: 30 }), (threads) => {
        const names = new ThreadPageNames();
        const byKey = new Map<string, string>();
        for (const [id, key] of threads) {
          const name = names.nameOf(id, key);
          expect(name).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*\.html$/);
          expect(name.length).toBeLessThanOrEqual(100);
          if (byKey.has(key)) expect(name).toBe(byKey.get(key));
          byKey.set(key, name);
        }
        const all = [...byKey.values()].map((n) => n.toLowerCase());
        expect(new Set(all).size).toBe(all.length);
      }),
    );
  });

  it("keeps a plain id as it is", () => {
    expect(new ThreadPageNames().nameOf("django__django-11138")).toBe("django__django-11138.html");
  });
});

describe("FleetTally", () => {
  const replay = (toolCalls: number): ReplayResult => ({
    toolCalls,
    decisions: [],
    order: [],
    orderEvidence: [],
    unreproduced: [],
    stops: [],
  });

  it("keeps the top threads of each ranking, as a sort of them all would, and fixed-size histograms", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(1_000), fc.double({ min: 0, max: 30, noNaN: true })), { maxLength: 300 }),
        fc.integer({ min: 1, max: 10 }),
        (threads, top) => {
          const tally = new FleetTally([], top, false);
          threads.forEach(([wasted, factor], i) =>
            tally.add({ id: `t${i}`, source: `t${i}` }, replay(i % 5), {
              origin: { kind: "file", path: `t${i}` },
              profile: { wastedTokens: wasted, peakRunawayFactor: factor, resultSizes: [wasted], repeats: [i % 4] },
            }),
          );
          const report = tally.report();
          const expected = (score: (t: [number, number]) => number) =>
            threads
              .map((t, i) => ({ i, s: score(t) }))
              .filter((t) => t.s > 0)
              .sort((a, b) => b.s - a.s || a.i - b.i)
              .slice(0, top)
              .map((t) => `t${t.i}`);
          expect(report.topWasted.map((t) => t.id)).toEqual(expected(([w]) => w));
          expect(report.topRunaway.map((t) => t.id)).toEqual(expected(([, f]) => f));
          expect(report.all.charts.repeatsPerCall.counts.reduce((a, b) => a + b, 0)).toBe(threads.length);
          expect(report.all.charts.toolCallsPerThread.counts.length).toBe(
            report.all.charts.toolCallsPerThread.edges.length,
          );
        },
      ),
    );
  });
});

describe("chart buckets", () => {
  const edges = [0, 1, 2, 3, 5, 10, 20];
  it("puts each value in the bucket whose edges hold it, and a threshold line inside it", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 100, noNaN: true }), (value) => {
        const i = bucketOf(edges, value);
        expect(edges[i]!).toBeLessThanOrEqual(value);
        if (i + 1 < edges.length) expect(value).toBeLessThan(edges[i + 1]!);
        const x = positionOf(edges, value);
        expect(x).toBeGreaterThanOrEqual(i);
        expect(x).toBeLessThan(i + 1);
      }),
    );
  });
  it("labels buckets by the values they hold", () => {
    expect([0, 3, 4, 6].map((i) => bucketLabel(edges, i))).toEqual(["0", "3–4", "5–9", "20+"]);
    expect(bucketLabel([0, 1_000, 3_000], 1, true)).toBe("1k–3k");
  });
});
