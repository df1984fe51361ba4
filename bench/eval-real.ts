// Regenerates docs/evaluation.md: the loop guards and the detectors other projects ship, and the
// runaway guard with simulated provider usage, and the thresholds `eval --suggest` fits on one half
// of each source and scores on the other, replayed over the recorded third-party runs in
// ../shared/evaldata. `npm run eval:real` (optional argument: another evaldata folder).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildReplaySetup, type ReplayConfig } from "../src/replay/config.js";
import { evaluateSources } from "../src/replay/evaluate.js";
import { replayThread } from "../src/replay/replayThread.js";
import { loadThreadFile } from "../src/replay/sources.js";
import { loopGuardOptions } from "../src/guards/loop/options.js";
import { BASELINES, callEvents } from "./baselines/index.js";
import { runawaySection } from "./evalRunaway.js";
import { suggestSection } from "./evalSuggest.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const evaldata = process.argv[2] ?? join(root, "..", "shared", "evaldata");
const episodesFile = join(root, "test", "fixtures", "loop-episodes.json");
const output = join(root, "docs", "evaluation.md");

if (!existsSync(join(evaldata, "index.json"))) {
  console.error(
    `eval:real: no recorded runs at ${evaldata} (it needs index.json and threads/); give another folder: npm run eval:real -- <folder>`,
  );
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------
// Data

interface IndexEntry {
  thread: string;
  outcome: Record<string, unknown>;
  tool_calls: number;
}

interface Episode {
  thread: string;
  kind: string;
  calls: string[];
  /** Why it is stuck or legitimate, in our words. */
  reason: string;
}

interface Thread {
  key: string;
  source: string;
  successful: boolean;
  outcome: Record<string, unknown>;
  calls: number;
  /** Tool name and canonical arguments of each call, by tool-call id. */
  callKeys: Map<string, string>;
}

type Action = "warn" | "directive" | "stop";

/** What a detector did on one call. */
interface Hit {
  callIndex: number;
  toolCallId: string;
  tool: string;
  action: Action;
  guard: string;
  reason: string;
}

interface Detector {
  name: string;
  ours: boolean;
  /** How it acts, for the table of detectors. */
  describe: string;
  run(messages: readonly unknown[]): Promise<Hit[]>;
}

/** The loop guard's defaults, as its schema gives them. */
const loopDefaults = loopGuardOptions.parse({});

const SOURCES = ["tau-bench-airline", "mini-swe-agent-swebench", "whowhen-hand-crafted", "whowhen-algorithm-generated"];

function isSuccessful(outcome: Record<string, unknown>): boolean {
  return outcome.resolved === true || outcome.reward === 1;
}

// ---------------------------------------------------------------------------------------------
// Detectors: ours through the replay engine `harness-kit eval` uses, the baselines from bench/.

function ours(name: string, config: ReplayConfig, describe: string): Detector {
  return {
    name,
    ours: true,
    describe,
    async run(messages) {
      const { stack } = buildReplaySetup(config);
      const { decisions } = await replayThread(messages as never, stack);
      // What the stack would have done live: a guard's judgement of a call an outer guard had
      // answered, or made after the run would have stopped, is left out.
      return decisions
        .filter((d) => !d.shadowedBy && !d.afterStop)
        .map(({ callIndex, toolCallId, tool, action, guard, reason }) => ({
          callIndex,
          // A stop at a run's start whose run made no call is on none.
          toolCallId: toolCallId ?? "",
          tool: tool ?? "",
          action,
          guard,
          reason,
        }));
    },
  };
}

const DETECTORS: Detector[] = [
  ours(
    "harness-kit: both loop guards",
    { guards: { ProgressAwareLoopGuardMiddleware: {}, LoopGuardMiddleware: {} } },
    "the loop guards of `recommendedGuards`, in its order `[ProgressAwareLoopGuardMiddleware, LoopGuardMiddleware]`, default options",
  ),
  ours(
    "harness-kit: LoopGuard",
    { guards: { LoopGuardMiddleware: {} } },
    `LoopGuardMiddleware alone: warn at ${loopDefaults.warnAt}, stop at ${loopDefaults.stopAt} identical consecutive calls (normalised arguments) since the call's result last brought something new`,
  ),
  ours(
    "harness-kit: ProgressAwareLoopGuard",
    { guards: { ProgressAwareLoopGuardMiddleware: {} } },
    "ProgressAwareLoopGuardMiddleware alone: directive once a repeat (or a near-duplicate: respelled, reworded, a field added; or a retry keeping every value its error names) brought nothing new since the world last changed (reads, shell reads included, change nothing), stop when a directive was ignored",
  ),
  ...BASELINES.map((baseline): Detector => ({
    name: baseline.name,
    ours: false,
    describe: `${baseline.rule}; ${baseline.intervention} (counted as a stop)`,
    async run(messages) {
      return baseline
        .detect(callEvents(messages))
        .map((f) => ({ ...f, action: "stop" as const, guard: baseline.name }));
    },
  })),
];

// ---------------------------------------------------------------------------------------------
// Replay

async function replayAll(index: IndexEntry[]) {
  const threads: Thread[] = [];
  const hits = new Map<string, Map<string, Hit[]>>(); // detector -> thread -> hits
  for (const detector of DETECTORS) hits.set(detector.name, new Map());
  for (const entry of index) {
    const file = join(evaldata, "threads", `${entry.thread}.json`);
    const { messages } = loadThreadFile(file);
    threads.push({
      key: entry.thread,
      source: entry.thread.split("/")[0]!,
      successful: isSuccessful(entry.outcome),
      outcome: entry.outcome,
      calls: entry.tool_calls,
      callKeys: new Map(callEvents(messages).map((c) => [c.toolCallId, c.key])),
    });
    for (const detector of DETECTORS) hits.get(detector.name)!.set(entry.thread, await detector.run(messages));
  }
  return { threads, hits };
}

// ---------------------------------------------------------------------------------------------
// Metrics

const acts = (hs: readonly Hit[], ...actions: Action[]) => hs.some((h) => actions.includes(h.action));
const intervenes = (hs: readonly Hit[]) => acts(hs, "directive", "stop");

function pct(part: number, whole: number): string {
  return whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)}%`;
}

function count(threads: readonly Thread[], hitsOf: (t: Thread) => Hit[], test: (hs: Hit[]) => boolean): number {
  return threads.filter((t) => test(hitsOf(t))).length;
}

function targetMark(ok: boolean): string {
  return ok ? "✅" : "❌";
}

interface EpisodeResult {
  /** 1-based occurrence of the first directive or stop among the episode's calls. */
  occurrence?: number;
  hit?: Hit;
  callIndex?: number;
}

function episodeResult(episode: Episode, hs: readonly Hit[]): EpisodeResult {
  for (let k = 0; k < episode.calls.length; k++) {
    const hit = hs.find((h) => h.toolCallId === episode.calls[k] && (h.action === "directive" || h.action === "stop"));
    if (hit) return { occurrence: k + 1, hit, callIndex: hit.callIndex };
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// Report

/** A markdown table; columns listed in `textColumns` are left-aligned, the others hold numbers. */
function table(header: string[], rows: string[][], textColumns: number[] = [0]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map((_, i) => (textColumns.includes(i) ? "---" : "---:"))), ...rows.map(line)].join(
    "\n",
  );
}

function kindCounts(list: readonly Episode[]): string {
  const counts = new Map<string, number>();
  for (const e of list) counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${n} ${kind}`).join(", ");
}

function describeEpisode(e: Episode): string {
  return `${e.thread} (${e.calls.length} calls)`;
}

async function main(): Promise<void> {
  const index = (JSON.parse(readFileSync(join(evaldata, "index.json"), "utf8")) as { threads: IndexEntry[] }).threads;
  const episodes = JSON.parse(readFileSync(episodesFile, "utf8")) as { stuck: Episode[]; legitimate: Episode[] };
  const started = process.hrtime.bigint();
  const { threads, hits } = await replayAll(index);
  const replaySeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const hitsOf = (detector: Detector) => (t: Thread) => hits.get(detector.name)!.get(t.key) ?? [];
  const successful = threads.filter((t) => t.successful);

  const out: string[] = [];
  out.push(
    "# Loop and runaway guards on real trajectories",
    "",
    `Generated by \`npm run eval:real\` (bench/eval-real.ts), ${new Date().toISOString().slice(0, 10)}, Node ${process.version}. Do not edit by hand.`,
    "",
    `The data is ../shared/evaldata: ${threads.length} recorded runs (${threads.reduce((n, t) => n + t.calls, 0).toLocaleString("en-US")} tool calls) of four agent systems nobody here wrote, with the outcomes their sources publish (see its README). Every detector judges every tool call before it runs, knowing the history before it, exactly as \`harness-kit eval\` replays a thread: the recorded call really ran, so the calls after it are judged on the real history. ${successful.length} runs are *successful*: SWE-bench instances the run resolved (${successful.filter((t) => t.source === "mini-swe-agent-swebench").length}) and τ-bench tasks with reward 1 (${successful.filter((t) => t.source === "tau-bench-airline").length}). Who&When runs are all failures.`,
    "",
    `Stuck episodes (${episodes.stuck.length}, in all four sources) and legitimate repetitions (${episodes.legitimate.length}) were found by hand and are listed, by thread and call ids with the reason for each label and nothing of the data, in test/fixtures/loop-episodes.json; test/eval/realData.test.ts asserts the requirements below whenever ../shared/evaldata is present.`,
    "",
    "## Detectors",
    "",
    table(
      ["detector", "what it does"],
      DETECTORS.map((d) => [d.ours ? `**${d.name}**` : d.name, d.describe]),
      [0, 1],
    ),
    "",
    "The four baselines are re-implemented in bench/baselines/ from each project's published behaviour. Each has a single intervention that ends or pauses the run, or refuses the call: all of them are counted as stops. The targets are issue 13's requirements for harness-kit's guards (at least 90% of the stuck episodes answered by their third call, no legitimate repetition answered, at most 0.5% of successful runs stopped and 3% directed); the marks on the other rows hold them to the same bar. Our rows count what the stack does live: a guard's judgement of a call an outer guard had already answered (replay shows it, marked) is left out.",
    "",
  );

  // Overall
  out.push("## Overall", "");
  const overallRows = DETECTORS.map((d) => {
    const of = hitsOf(d);
    const stuckCaught = episodes.stuck.filter((e) => {
      const r = episodeResult(e, of(threads.find((t) => t.key === e.thread)!));
      return r.occurrence !== undefined && r.occurrence <= 3;
    }).length;
    const legitHit = episodes.legitimate.filter(
      (e) => episodeResult(e, of(threads.find((t) => t.key === e.thread)!)).occurrence !== undefined,
    ).length;
    const successStop = count(successful, of, (hs) => acts(hs, "stop"));
    const successDirective = count(successful, of, (hs) => acts(hs, "directive"));
    return [
      d.ours ? `**${d.name}**` : d.name,
      `${count(threads, of, intervenes)} (${pct(count(threads, of, intervenes), threads.length)})`,
      `${count(threads, of, (hs) => acts(hs, "stop"))}`,
      `${count(threads, of, (hs) => acts(hs, "directive"))}`,
      `${successStop} (${pct(successStop, successful.length)}) ${targetMark(successStop / successful.length <= 0.005)}`,
      `${successDirective} (${pct(successDirective, successful.length)}) ${targetMark(successDirective / successful.length <= 0.03)}`,
      `${stuckCaught} / ${episodes.stuck.length} (${pct(stuckCaught, episodes.stuck.length)}) ${targetMark(stuckCaught >= 0.9 * episodes.stuck.length)}`,
      `${legitHit} / ${episodes.legitimate.length} ${targetMark(legitHit === 0)}`,
    ];
  });
  out.push(
    table(
      [
        "detector",
        "threads with a directive or stop",
        "threads with a stop",
        "threads with a directive",
        "successful runs with a stop (target ≤ 0.5%)",
        "successful runs with a directive (target ≤ 3%)",
        "stuck episodes answered by the 3rd call (target ≥ 90%)",
        "legitimate repetitions given a directive or stop (target 0)",
      ],
      overallRows,
    ),
    "",
  );

  // Where a live run would have stopped
  const progressStop = (t: Thread) =>
    hitsOf(DETECTORS[0]!)(t).some((h) => h.guard === "ProgressAwareLoopGuardMiddleware" && h.action === "stop");
  const liveStops = threads.filter(progressStop);
  const successfulStops = liveStops.filter((t) => t.successful).length;
  out.push(
    "### Stops in a live run",
    "",
    `ProgressAwareLoopGuard stops a run only after the model ignored a directive: it repeats a call the guard already refused. No model in these recordings ever read a directive (the refused calls really ran), so replay judges each as a live guard would have judged that same model: the first would-be refusal is exact, and each recorded repeat of a call the guard would have refused counts as the model ignoring the refusal. The stops in the tables are where a live run would have stopped, and decisions after a stop are left out. With both loop guards, the progress guard stops ${liveStops.length} threads (${pct(liveStops.length, threads.length)}), ${successfulStops} of them successful (${pct(successfulStops, successful.length)} of successful runs; target ≤ 0.5% ${targetMark(successfulStops / successful.length <= 0.005)}).`,
    "",
  );

  // Per source
  out.push("## Per source", "");
  for (const source of SOURCES) {
    const inSource = threads.filter((t) => t.source === source);
    const ok = inSource.filter((t) => t.successful);
    out.push(
      `### ${source}`,
      "",
      `${inSource.length} threads, ${inSource.reduce((n, t) => n + t.calls, 0).toLocaleString("en-US")} tool calls, ${ok.length} successful.`,
      "",
    );
    out.push(
      table(
        [
          "detector",
          "threads with a directive or stop",
          "threads with a stop",
          "threads with a directive",
          "successful runs with a stop",
          "successful runs with a directive",
        ],
        DETECTORS.map((d) => {
          const of = hitsOf(d);
          return [
            d.ours ? `**${d.name}**` : d.name,
            `${count(inSource, of, intervenes)} (${pct(count(inSource, of, intervenes), inSource.length)})`,
            `${count(inSource, of, (hs) => acts(hs, "stop"))}`,
            `${count(inSource, of, (hs) => acts(hs, "directive"))}`,
            ok.length
              ? `${count(ok, of, (hs) => acts(hs, "stop"))} (${pct(
                  count(ok, of, (hs) => acts(hs, "stop")),
                  ok.length,
                )})`
              : "–",
            ok.length
              ? `${count(ok, of, (hs) => acts(hs, "directive"))} (${pct(
                  count(ok, of, (hs) => acts(hs, "directive")),
                  ok.length,
                )})`
              : "–",
          ];
        }),
      ),
      "",
    );
  }

  // Episodes
  const cell = (e: Episode, d: Detector) => {
    const r = episodeResult(e, hitsOf(d)(threads.find((t) => t.key === e.thread)!));
    if (r.occurrence === undefined) return "—";
    const mark = r.occurrence <= 3 ? "" : " ⚠";
    return `${r.hit!.action} at occurrence ${r.occurrence} (call ${r.callIndex})${mark}`;
  };
  out.push(
    "## Stuck episodes",
    "",
    `${episodes.stuck.length} episodes, by kind: ${kindCounts(episodes.stuck)}. Where each detector first answers the repeated call with a directive or a stop: the occurrence of the repeated call (1 = its first call) and the call's index in the thread (from 0). Requirement for ours: by the 3rd occurrence. — means never.`,
    "",
    table(
      ["episode", "kind", ...DETECTORS.map((d) => d.name)],
      episodes.stuck.map((e) => [describeEpisode(e), e.kind, ...DETECTORS.map((d) => cell(e, d))]),
      [0, 1],
    ),
    "",
    "## Legitimate repetition",
    "",
    `${episodes.legitimate.length} episodes, by kind: ${kindCounts(episodes.legitimate)}. Listed: every episode some detector answers with a directive or stop.`,
    "",
  );
  const legitHitRows = episodes.legitimate
    .filter((e) =>
      DETECTORS.some(
        (d) => episodeResult(e, hitsOf(d)(threads.find((t) => t.key === e.thread)!)).occurrence !== undefined,
      ),
    )
    .map((e) => [describeEpisode(e), e.kind, ...DETECTORS.map((d) => cell(e, d))]);
  out.push(
    legitHitRows.length
      ? table(["episode", "kind", ...DETECTORS.map((d) => d.name)], legitHitRows, [0, 1])
      : "No detector answers any of them.",
    "",
  );

  // Misses and false alarms of ours
  out.push("## What the remaining misses and false alarms look like", "");
  const stack = DETECTORS[0]!;
  const stackOf = hitsOf(stack);
  const falseOnSuccess = successful.flatMap((t) =>
    stackOf(t)
      .filter((h) => h.action !== "warn")
      .map((h) => ({ t, h })),
  );
  out.push(`### Directives and stops on successful runs (${stack.name})`, "", hitsTable(falseOnSuccess), "");
  const misses = episodes.stuck
    .map((e) => ({ e, r: episodeResult(e, stackOf(threads.find((t) => t.key === e.thread)!)) }))
    .filter(({ r }) => r.occurrence === undefined || r.occurrence > 3);
  out.push(
    `### Stuck episodes not answered by the 3rd call (${stack.name})`,
    "",
    misses.length
      ? table(
          ["episode", "kind", "why it is stuck", "first directive or stop"],
          misses.map(({ e, r }) => [
            describeEpisode(e),
            e.kind,
            e.reason,
            r.occurrence ? `occurrence ${r.occurrence} (call ${r.callIndex})` : "never",
          ]),
          [0, 1, 2, 3],
        )
      : "None.",
    "",
  );
  const legitHits = episodes.legitimate
    .map((e) => ({ e, r: episodeResult(e, stackOf(threads.find((t) => t.key === e.thread)!)) }))
    .filter(({ r }) => r.occurrence !== undefined);
  out.push(
    `### Legitimate repetitions answered with a directive or stop (${stack.name})`,
    "",
    legitHits.length
      ? table(
          ["episode", "kind", "first directive or stop"],
          legitHits.map(({ e, r }) => [
            describeEpisode(e),
            e.kind,
            `${r.hit!.guard} ${r.hit!.action} at occurrence ${r.occurrence} (call ${r.callIndex}): ${r.hit!.reason}`,
          ]),
          [0, 1, 2],
        )
      : "None.",
    "",
  );
  const otherFlags = threads
    .filter((t) => !t.successful)
    .flatMap((t) =>
      stackOf(t)
        .filter((h) => h.action !== "warn")
        .map((h) => ({ t, h })),
    )
    .filter(
      ({ t, h }) =>
        ![...episodes.stuck, ...episodes.legitimate].some((e) => e.thread === t.key && e.calls.includes(h.toolCallId)),
    );
  out.push(
    `### Other directives and stops, on failed runs, outside the labelled episodes (${stack.name})`,
    "",
    hitsTable(otherFlags),
    "",
    ANALYSIS,
    "",
  );

  out.push(...(await runawaySection(evaldata, index, episodes.stuck)));
  out.push(...(await suggestSection(evaldata, index)));

  // Throughput of the CLI's replay
  const files = index.map((entry) => ({
    kind: "file" as const,
    path: join(evaldata, "threads", `${entry.thread}.json`),
  }));
  let best = Number.POSITIVE_INFINITY;
  let calls = 0;
  for (let round = 0; round < 5; round++) {
    const summary = await evaluateSources(files, buildReplaySetup());
    best = Math.min(best, summary.elapsedMs);
    calls = summary.toolCalls;
  }
  const rate = calls / (best / 1000);
  out.push(
    "## Throughput",
    "",
    table(
      ["measurement", "result", "target"],
      [
        [
          `\`harness-kit eval\` replay of all ${threads.length} threads, its default stack: RunawayGuard and both loop guards (load, parse, replay; best of 5 in one process)`,
          `${Math.round(rate).toLocaleString("en-US")} tool calls/s (${(best / 1000).toFixed(2)} s for ${calls.toLocaleString("en-US")} calls)`,
          `≥ 20,000 tool calls/s ${targetMark(rate >= 20_000)}`,
        ],
      ],
    ),
    "",
    `This report's own run (7 detectors, one replay each) took ${replaySeconds.toFixed(1)} s, on ${cpus().length} cores with a load average of ${loadavg()[0]!.toFixed(1)} when it finished: timings from a busy machine are upper bounds.`,
    "",
  );

  writeFileSync(output, out.join("\n"));
  console.log(`wrote ${output}`);
}

/** How to read the tables above. */
const ANALYSIS = `### Reading the results

- **One loop judgement.** ProgressAwareLoopGuard decides from what each repeat brought; LoopGuard counts identical calls but only since the call's result last brought something new, so it never warns on or stops a poll whose answer moves or a log that grows, and it stops (at 7) only loops the progress guard was told to wait on (\`pollingTools\`) or that ignore its directives.
- **Results-blind detectors confuse progress with loops.** gemini-cli and Roo Code count identical calls without reading results: scrolling a long page one screen at a time (Magentic-One's WebSurfer, the same arguments each time) shows new content every time, yet Roo Code refuses the 4th scroll and gemini-cli stops the 5th. They also miss every τ-bench booking that fails the same way with a \`think\` call between attempts, because the calls are not consecutive, and reach the stuck Magentic-One clicks at the 4th or 5th click at best.
- **Exact comparison misses what is nearly the same.** OpenHands and able-harness-kit's progress guard compare arguments and results byte for byte. Magentic-One reads each page back through an LLM-written OCR, so an unchanged page never gives the same text twice; the orchestrator asks FileSurfer again in new words; an AG2 agent re-runs its script with a conditional rewritten and a comment added; a τ-bench agent adds a flight to a change that keeps failing. ProgressAwareLoopGuard compares arguments after normalisation (key order, casing, whitespace, comments in code), matches reworded instructions (same quoted values, most words in common), code with the same vocabulary (only once a run was repeated in vain) and an added field or item (never a changed value: another card, another route, another test case is exploration), and counts such a call only when its result is the same too.
- **A user message resets only what it can change.** The same flight change failing with the same error across five user messages (τ-bench task13) keeps its count: a message cannot change how a call fails. A call that succeeded starts over.
- **A-B cycles** of stale results are caught at the third occurrence of either call: a change of the world whose own call was then repeated in vain (the "back" of click-back-click-back) does not start a new judgement.
- **The remaining miss** (hc-51's FileSurfer) answers the same failed transcript each time, but its second answer adds the browser's "You previously visited this page" line to the first; a line that is new is news to a near-duplicate, so the first repeat is not counted.
- **Directives on successful runs** are real stuck episodes in runs that still succeeded: the SWE-bench agent runs the same no-op \`sed\` (a string replaced with itself) three times, and a τ-bench agent sends a failing flight change three times across user messages before it finds another way.
- **Not labelled as stuck:** three clicks on one entry in hc-11 (calls hc-11-tc20..tc22) toggle a panel open and closed; the payment retries of τ-bench task23 and task46 try another card or amount, then the first again (two attempts of each); hc-27 and hc-56 reach the same page from different pages (each step changes the page). The ProgressAwareLoopGuard directives outside the labelled episodes refuse scrolls through parts of a page the agent had already read.`;

await main();

/** The decisions `hits` lists, a row each, or "None.". */
function hitsTable(
  hits: readonly {
    t: { key: string };
    h: { callIndex: number; toolCallId: string; tool: string; guard: string; action: string; reason: string };
  }[],
): string {
  if (hits.length === 0) return "None.";
  const rows = hits.map(({ t, h }) => [t.key, `${h.callIndex} (${h.toolCallId})`, h.tool, h.guard, h.action, h.reason]);
  return table(["thread", "call", "tool", "guard", "action", "reason"], rows, [0, 2, 3, 4, 5]);
}
