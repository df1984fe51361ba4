import type { EvalSummary } from "../replay/evaluate.js";
import { ACTIONS } from "../replay/evaluate.js";
import { CHART_EDGES, type FleetGroup, type FleetReport, type FleetThread } from "../replay/fleetTally.js";
import type { GuardThresholds } from "../replay/thresholds.js";
import { esc, pageHead } from "./html.js";
import { barChartSvg, type ChartSeries, type ChartThreshold } from "./svgCharts.js";

export interface EvalPageInput {
  summary: EvalSummary;
  fleet: FleetReport;
  thresholds: GuardThresholds;
  /** The link to a listed thread's own page, relative to the report; undefined when it has none. */
  pageOf: (thread: FleetThread) => string | undefined;
}

const COLOURS = { all: "#5b7fd6", success: "#3f9b57", failure: "#c8553d", unknown: "#9aa3b2" } as const;
const LIMIT = { warn: "#0a8fa6", directive: "#c77700", stop: "#c62828" } as const;

/**
 * The fleet report of `eval --html`: one self-contained page (no script, no external asset, a
 * Content-Security-Policy that forbids both) with what each guard would have done over every
 * thread replayed, the threads that wasted most, and the distributions the thresholds act on.
 * Thread ids, tool names and reasons come from the data: every piece of text is escaped.
 */
export function renderEvalHtml({ summary, fleet, thresholds, pageOf }: EvalPageInput): string {
  const { all } = fleet;
  return `${pageHead(`harness-kit eval: ${all.threads.toLocaleString("en-US")} threads`, STYLE)}
<body>
<header>
<h1>harness-kit eval: ${count(all.threads, "thread")}, ${count(all.toolCalls, "tool call")}</h1>
<p class="meta">guards replayed, outermost first: ${esc(summary.guards.join(" > ") || "none")} (${esc(summary.orderSource)})${summary.threadsReordered > 0 ? ` · ${count(summary.threadsReordered, "thread")} replayed in the order their recorded answers show` : ""}</p>
<p class="meta">${count(all.threadsStopped, "thread")} the stack would have stopped (${share(all.threadsStopped, all.threads)}) · ${number(all.tokensAfterStops)} tokens the recorded runs spent after those stops · ${number(all.wastedTokens)} tokens of model calls that read nothing new${summary.failed > 0 ? ` · ${count(summary.failed, "source")} could not be loaded` : ""}${summary.simulatedSystemTokens !== undefined ? ` · usage simulated (system prompt ${number(summary.simulatedSystemTokens)} tokens)` : ""}</p>
</header>
<main>
<section><h2>What each guard would do</h2>
${guardTable(summary.guards, fleet)}
</section>
<section><h2>Distributions</h2>
<div class="charts">${charts(fleet, thresholds)}</div>
<p class="note">Dashed lines: the replayed guards' thresholds, from the options replayed. The loop guard counts identical calls with the call itself, so its lines sit one repeat lower; the progress guard counts wasted repeats (errors twice).</p>
</section>
${fleet.byOutcome ? outcomeSection(summary.guards, fleet.byOutcome) : ""}
<section><h2>Threads that wasted the most tokens</h2>
<p class="note">Tokens of the model calls that read only tool results that brought nothing new.</p>
${ranking(fleet.topWasted, pageOf, fleet.byOutcome !== undefined)}
</section>
<section><h2>Threads with the highest runaway factor</h2>
<p class="note">Tokens spent since a tool last brought something new, over the run's input: about the model calls in a row that learned nothing.</p>
${ranking(fleet.topRunaway, pageOf, fleet.byOutcome !== undefined)}
</section>
</main>
</body>
</html>
`;
}

/** Per guard, signal code and action: decisions, threads with one, and their share of all threads. */
function guardTable(guards: readonly string[], fleet: FleetReport): string {
  const { all } = fleet;
  const rows: string[] = [];
  for (const guard of guards) {
    const codes = Object.keys(all.decisions[guard] ?? {}).sort();
    const changed = all.threadsChanged[guard] ?? 0;
    const head = `<tr class="guard"><th colspan="6">${esc(guard)} <span class="note">would change ${count(changed, "thread")} (${share(changed, all.threads)}): a directive or a stop</span></th></tr>`;
    const lines = codes.flatMap((code) =>
      ACTIONS.filter((action) => (all.decisions[guard]![code]![action] ?? 0) > 0).map((action) => {
        const threads = all.threadsWith[guard]?.[code]?.[action] ?? 0;
        return `<tr><td></td><td><code>${esc(code)}</code></td><td class="act-${action}">${action}</td><td class="num">${number(all.decisions[guard]![code]![action])}</td><td class="num">${number(threads)}</td><td class="num">${share(threads, all.threads)}${bar(threads, all.threads)}</td></tr>`;
      }),
    );
    rows.push(
      head,
      ...(lines.length > 0
        ? lines
        : [`<tr><td></td><td colspan="5" class="note">no decision other than allow</td></tr>`]),
    );
  }
  return `<table class="totals"><thead><tr><th>guard</th><th>code</th><th>action</th><th class="num">decisions</th><th class="num">threads</th><th class="num">share of threads</th></tr></thead><tbody>${rows.join("\n")}</tbody></table>`;
}

/** The same totals split by outcome: the share of successful and of failed runs each guard's decisions would touch. */
function outcomeSection(
  guards: readonly string[],
  groups: Record<"success" | "failure" | "unknown", FleetGroup>,
): string {
  const kinds = (["success", "failure", "unknown"] as const).filter(
    (k) => k !== "unknown" || groups.unknown.threads > 0,
  );
  const keys = new Set<string>();
  for (const kind of kinds)
    for (const guard of guards)
      for (const code of Object.keys(groups[kind].threadsWith[guard] ?? {}))
        for (const action of ACTIONS)
          if ((groups[kind].threadsWith[guard]![code]![action] ?? 0) > 0)
            keys.add(`${guard}\u0000${code}\u0000${action}`);
  const ordered = [...keys].sort(
    (a, b) => guards.indexOf(a.split("\u0000")[0]!) - guards.indexOf(b.split("\u0000")[0]!) || a.localeCompare(b),
  );
  const rows = ordered.map((key) => {
    const [guard, code, action] = key.split("\u0000") as [string, string, "warn" | "directive" | "stop"];
    const cells = kinds.map((kind) => {
      const threads = groups[kind].threadsWith[guard]?.[code]?.[action] ?? 0;
      return `<td class="num">${number(threads)} <span class="note">(${share(threads, groups[kind].threads)})</span></td>`;
    });
    return `<tr><td>${esc(guard)}</td><td><code>${esc(code)}</code></td><td class="act-${action}">${action}</td>${cells.join("")}</tr>`;
  });
  const stopped = kinds.map(
    (kind) =>
      `<td class="num">${number(groups[kind].threadsStopped)} <span class="note">(${share(groups[kind].threadsStopped, groups[kind].threads)})</span></td>`,
  );
  const header = kinds
    .map(
      (kind) =>
        `<th class="num">${kind === "unknown" ? "no outcome given" : kind === "success" ? "successful runs" : "failed runs"}: ${number(groups[kind].threads)}</th>`,
    )
    .join("");
  return `<section><h2>By outcome</h2>
<p class="note">Threads with each decision, among the runs that succeeded and those that failed: a guard should touch few successful runs.</p>
<table class="totals"><thead><tr><th>guard</th><th>code</th><th>action</th>${header}</tr></thead><tbody>${rows.join("\n")}
<tr class="guard"><td colspan="3">the stack would stop the run</td>${stopped.join("")}</tr></tbody></table></section>`;
}

function ranking(threads: readonly FleetThread[], pageOf: EvalPageInput["pageOf"], withOutcome: boolean): string {
  if (threads.length === 0) return `<p class="note">None.</p>`;
  const rows = threads.map((t, i) => {
    const page = pageOf(t);
    const name = page ? `<a href="${esc(page)}">${esc(t.id)}</a>` : esc(t.id);
    return `<tr><td class="num">${i + 1}</td><td class="id">${name}<div class="note">${esc(t.source)}</div></td>${withOutcome ? `<td>${esc(t.outcome ?? "")}</td>` : ""}<td class="num">${number(t.toolCalls)}</td><td class="num">${number(t.wastedTokens)}</td><td class="num">${t.peakRunawayFactor.toFixed(2)}×</td><td class="${t.worst ? `act-${t.worst}` : ""}">${t.worst ?? "allow"}</td><td class="num">${number(t.tokensAfterStops)}</td></tr>`;
  });
  return `<table class="rank"><thead><tr><th class="num">#</th><th>thread</th>${withOutcome ? "<th>outcome</th>" : ""}<th class="num">tool calls</th><th class="num">wasted tokens</th><th class="num">peak factor</th><th>strongest action</th><th class="num">tokens after a stop</th></tr></thead><tbody>${rows.join("\n")}</tbody></table>`;
}

function charts(fleet: FleetReport, thresholds: GuardThresholds): string {
  const seriesOf = (pick: (g: FleetGroup) => readonly number[]): ChartSeries[] =>
    fleet.byOutcome
      ? [
          { name: "successful runs", counts: pick(fleet.byOutcome.success), colour: COLOURS.success },
          { name: "failed runs", counts: pick(fleet.byOutcome.failure), colour: COLOURS.failure },
          ...(fleet.byOutcome.unknown.threads > 0
            ? [{ name: "no outcome given", counts: pick(fleet.byOutcome.unknown), colour: COLOURS.unknown }]
            : []),
        ]
      : [{ name: "threads", counts: pick(fleet.all), colour: COLOURS.all }];
  const { runaway, loop, progress } = thresholds;
  const runawayLines: ChartThreshold[] = runaway
    ? [
        { value: runaway.warnAt, label: `runaway warnAt ${runaway.warnAt}`, colour: LIMIT.warn },
        { value: runaway.blockAt, label: `blockAt ${runaway.blockAt}`, colour: LIMIT.directive },
        { value: runaway.stopAt, label: `stopAt ${runaway.stopAt}`, colour: LIMIT.stop },
      ]
    : [];
  // A call's repeats are the identical calls before it; the loop guard counts the call itself.
  const repeatLines: ChartThreshold[] = [
    ...(progress
      ? [{ value: progress.stopAt, label: `progress stopAt ${progress.stopAt}`, colour: LIMIT.directive }]
      : []),
    ...(loop
      ? [
          { value: loop.warnAt - 1, label: `loop warnAt ${loop.warnAt}`, colour: LIMIT.warn },
          { value: loop.stopAt - 1, label: `loop stopAt ${loop.stopAt}`, colour: LIMIT.stop },
        ]
      : []),
  ];
  return [
    barChartSvg({
      title: "Tool calls per thread",
      unit: "threads",
      axis: "tool calls in the thread",
      edges: CHART_EDGES.toolCallsPerThread,
      series: seriesOf((g) => g.charts.toolCallsPerThread.counts),
      thresholds: [],
    }),
    barChartSvg({
      title: "Peak runaway factor per thread",
      unit: "threads",
      axis: "highest runaway factor of any run of the thread",
      edges: CHART_EDGES.peakRunawayFactor,
      series: seriesOf((g) => g.charts.peakRunawayFactor.counts),
      thresholds: runawayLines,
      continuous: true,
    }),
    barChartSvg({
      title: "Result sizes",
      unit: "results",
      axis: "characters of a tool result",
      edges: CHART_EDGES.resultSizes,
      series: seriesOf((g) => g.charts.resultSizes.counts),
      thresholds: [],
      continuous: true,
    }),
    barChartSvg({
      title: "Repeats per call",
      unit: "calls",
      axis: "earlier calls with the same tool and arguments",
      edges: CHART_EDGES.repeatsPerCall,
      series: seriesOf((g) => g.charts.repeatsPerCall.counts),
      thresholds: repeatLines,
    }),
  ].join("\n");
}

/** A small bar behind a share, drawn with CSS only. */
function bar(part: number, whole: number): string {
  const pct = whole === 0 ? 0 : Math.min(100, (part / whole) * 100);
  return `<span class="bar" style="width:${pct.toFixed(1)}px"></span>`;
}

function share(part: number, whole: number): string {
  if (whole === 0) return "0%";
  const pct = (part / whole) * 100;
  return `${pct < 1 && pct > 0 ? pct.toFixed(2) : pct.toFixed(1)}%`;
}

function number(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function count(value: number, noun: string): string {
  return `${number(value)} ${noun}${value === 1 ? "" : "s"}`;
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{padding:16px 24px;background:#fff;border-bottom:1px solid #dde1e6}
h1{font-size:18px;margin:0 0 4px}h2{font-size:16px;margin:18px 0 6px}
.meta{margin:2px 0;color:#5b6475}.note{color:#6b7385;font-size:12px;font-weight:normal}
main{padding:8px 24px 24px;max-width:1200px}
table{border-collapse:collapse;background:#fff;border:1px solid #dde1e6;border-radius:6px;margin:4px 0 8px}
th,td{padding:4px 10px;text-align:left;border-bottom:1px solid #eef0f3;vertical-align:top}
th{font-size:12px;color:#5b6475;font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.guard th,tr.guard td{background:#f1f3f7;color:#1d2330;font-size:13px}
.id{max-width:480px;word-break:break-all}
a{color:#2f55b8}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,monospace}
.act-warn{color:#0a7f94}.act-directive{color:#b36b00}.act-stop{color:#c62828;font-weight:600}
.bar{display:inline-block;height:8px;background:#5b7fd6;margin-left:6px;border-radius:2px;vertical-align:middle}
.charts{display:flex;flex-wrap:wrap;gap:12px}
figure.chart{margin:0;background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:8px}
figcaption{font-weight:600;margin-bottom:4px}
svg .tick{font-size:10px;fill:#5b6475}svg .axis{font-size:11px;fill:#37415a}svg .limit{font-size:10px;font-weight:600}
`;
