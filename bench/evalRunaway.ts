// The RunawayGuard section of docs/evaluation.md: its decisions on every source with simulated
// provider usage, the measures it was chosen over, and where it stops the runaways it exists for.
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { messageKind, toolCallsOf } from "../src/core/messages.js";
import { loadThreadFile } from "../src/replay/sources.js";
import { simulateUsage } from "../src/replay/simulateUsage.js";
import { replayThread, type ReplayedDecision } from "../src/replay/replayThread.js";
import { CHARS_PER_TOKEN } from "../src/core/tokens.js";
import { estimatedChars, RunawayLedger } from "../src/guards/runaway/ledger.js";
import { runawayGuardOptions } from "../src/guards/runaway/options.js";
import { billedTokens, carryOn, firstStop, INCIDENT, incidentThread, runawayStack } from "./runawayShapes.js";

interface IndexEntry {
  thread: string;
  outcome: Record<string, unknown>;
}

interface Episode {
  thread: string;
  kind: string;
  calls: string[];
}

/** How the replay counts tokens: simulated usage over a system prompt of so many tokens, or estimates from the messages alone. */
type Usage = number | "estimate";
/** The runaway guard's defaults, as its schema gives them. */
const runawayDefaults = runawayGuardOptions.parse({});

const USAGES: Usage[] = [8_000, 2_000, "estimate"];
const usageLabel = (u: Usage) =>
  u === "estimate" ? "estimated (no usage)" : `simulated, ${u.toLocaleString("en-US")}-token system prompt`;
const withUsage = (messages: readonly BaseMessage[], u: Usage) =>
  u === "estimate" ? [...messages] : simulateUsage(messages, u);

const SOURCES = ["tau-bench-airline", "mini-swe-agent-swebench", "whowhen-hand-crafted", "whowhen-algorithm-generated"];
const PREVIOUS = { warnAt: 15, blockAt: 25, stopAt: 40 };

/** The three measures compared, at one decision point (an AI message asking for tool calls). */
interface Point {
  callIndex: number;
  /** Tokens of the model calls since a result last brought something new ÷ the input of the call that read it: the guard's. */
  runaway: number;
  /** The run's tokens ÷ its first call's input: the measure this guard had before. */
  previous: number;
  /** Tokens of the run's tool calls and results ÷ its first call's input. */
  toolsAdded: number;
}

/** Every decision point of a thread, with the three measures (minInputTokens as the guard's default). */
function measures(messages: readonly BaseMessage[]): Point[] {
  const points: Point[] = [];
  const history: BaseMessage[] = [];
  const ledger = new RunawayLedger();
  let toolChars = 0;
  let calls = 0;
  for (const message of messages) {
    history.push(message);
    const kind = messageKind(message);
    if (
      kind === "human" &&
      (message as { additional_kwargs?: { lc_source?: string } }).additional_kwargs?.lc_source !== "summarization"
    )
      toolChars = 0;
    if (kind === "tool") toolChars += estimatedChars(message);
    if (kind !== "ai") continue;
    const asked = toolCallsOf(message);
    toolChars += estimatedChars({ tool_calls: asked });
    if (asked.length === 0) continue;
    const run = ledger.update(history).measureRun(runawayDefaults.minInputTokens);
    points.push({
      callIndex: calls,
      runaway: run.factor,
      previous: run.tokens / run.inputTokens,
      toolsAdded: toolChars / CHARS_PER_TOKEN / run.inputTokens,
    });
    calls += asked.length;
  }
  return points;
}

const peak = (points: readonly Point[], key: keyof Omit<Point, "callIndex">) =>
  points.reduce((max, p) => Math.max(max, p[key]), 0);
const crossing = (points: readonly Point[], key: keyof Omit<Point, "callIndex">, threshold: number) =>
  points.find((p) => p[key] >= threshold)?.callIndex;

interface ThreadResult {
  key: string;
  source: string;
  successful: boolean;
  decisions: Map<Usage, ReplayedDecision[]>;
  points: Map<Usage, Point[]>;
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const pct = (part: number, whole: number) => (whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)}%`);
const mark = (ok: boolean) => (ok ? "✅" : "❌");
const x = (n: number) => `${n.toFixed(n >= 100 ? 0 : 1)}×`;
const tokens = (n: number) => `${(n / 1e6).toFixed(2)} M`;

function table(header: string[], rows: string[][], textColumns: number[] = [0]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map((_, i) => (textColumns.includes(i) ? "---" : "---:"))), ...rows.map(line)].join(
    "\n",
  );
}

export async function runawaySection(
  evaldata: string,
  index: readonly IndexEntry[],
  stuck: readonly Episode[],
): Promise<string[]> {
  const threads: ThreadResult[] = [];
  const loaded = new Map<string, BaseMessage[]>();
  for (const entry of index) {
    const { messages } = loadThreadFile(join(evaldata, "threads", `${entry.thread}.json`));
    loaded.set(entry.thread, messages);
    const result: ThreadResult = {
      key: entry.thread,
      source: entry.thread.split("/")[0]!,
      successful: entry.outcome.resolved === true || entry.outcome.reward === 1,
      decisions: new Map(),
      points: new Map(),
    };
    for (const usage of USAGES) {
      const billed = withUsage(messages, usage);
      result.decisions.set(usage, (await replayThread(billed, runawayStack())).decisions);
      result.points.set(usage, measures(billed));
    }
    threads.push(result);
  }
  const successful = threads.filter((t) => t.successful);
  const has = (t: ThreadResult, u: Usage, action: string) => t.decisions.get(u)!.some((d) => d.action === action);
  const d = runawayDefaults;
  const out: string[] = [];

  out.push(
    "## RunawayGuard",
    "",
    `RunawayGuardMiddleware with its defaults (warn at ${d.warnAt}×, refuse repeated calls from ${d.blockAt}×, stop at ${d.stopAt}×), replayed alone over every thread. The recorded threads carry no \`usage_metadata\`, so each replay gives every AI message the usage a provider would report, as \`harness-kit eval --simulate-usage --system-tokens <n>\` does: input = a system prompt and tool schemas of 8,000 or 2,000 tokens + every message before it, output = the message itself, at 4 characters a token. A third replay gives no usage, so the guard estimates from the messages alone. test/eval/runawayRealData.test.ts asserts the targets below whenever ../shared/evaldata is present.`,
    "",
    "### The measure",
    "",
    "Each model call re-reads the whole history, so a run's tokens grow with the square of its model calls: a healthy coding run of 60 calls has paid for its first input hundreds of times over. The previous measure (the run's tokens ÷ its first call's input) therefore crossed its stop threshold of 40× on half the resolved SWE-bench runs. The runaway factor counts only the re-reads that learned nothing: the tokens of the model calls since a tool result last brought something new (by the observation store's novelty, which the loop guards share), ÷ the input of the call that read that result. It is about 1 per model call that learns nothing, and starts over at 0 with every new result. Its highest value over each run, for the three measures considered:",
    "",
  );
  const measureRow = (name: string, key: keyof Omit<Point, "callIndex">) => {
    const cells = [name];
    for (const u of [8_000, 2_000] as const) {
      const ok = successful.map((t) => peak(t.points.get(u)!, key));
      cells.push(`${x(percentile(ok, 50))} / ${x(percentile(ok, 99.5))} / ${x(Math.max(...ok))}`);
    }
    const failed = threads.filter((t) => !t.successful).map((t) => peak(t.points.get(8_000)!, key));
    cells.push(`${x(percentile(failed, 50))} / ${x(Math.max(...failed))}`);
    return cells;
  };
  const incident = incidentThread() as unknown as BaseMessage[];
  const incidentPoints = measures(simulateUsage(incident, INCIDENT.systemTokens));
  const highest = (key: keyof Omit<Point, "callIndex">) =>
    Math.max(...successful.flatMap((t) => [8_000, 2_000].map((u) => peak(t.points.get(u)!, key))));
  out.push(
    table(
      [
        "measure",
        "successful runs, 8,000-token prompt: median / 99.5th percentile / max",
        "successful runs, 2,000-token prompt",
        "failed runs, 8,000: median / max",
        "the incident, at its last call",
      ],
      [
        [
          ...measureRow("run tokens ÷ first input (the previous measure)", "previous"),
          x(peak(incidentPoints, "previous")),
        ],
        [
          ...measureRow("tool-call and result tokens ÷ first input", "toolsAdded"),
          x(peak(incidentPoints, "toolsAdded")),
        ],
        [
          ...measureRow("**runaway factor** (tokens since the last new result ÷ the context then)", "runaway"),
          x(peak(incidentPoints, "runaway")),
        ],
      ],
    ),
    "",
    `The previous measure separates nothing: successful runs reach ${x(highest("previous"))}, ${Math.round(highest("previous") / peak(incidentPoints, "previous"))} times what the incident did. What the tools add grows only linearly, but it depends on the system prompt's size and cannot see the incident at all, whose five inputs are in its first call and whose tool results are small. The runaway factor barely depends on the system prompt (it is a ratio of re-reads): the highest successful run reaches ${x(highest("runaway"))}, the incident ${x(peak(incidentPoints, "runaway"))}. The defaults follow: the stop at ${d.stopAt}× is ${x(d.stopAt - highest("runaway"))} above the highest successful run; the block at ${d.blockAt}× refuses only a call that repeats one the run already made (the few successful runs that get there, a revert then a re-apply, a test re-run on unchanged code, are refused only if they repeat themselves once more); the warning at ${d.warnAt}× is a signal. To calibrate for another agent, run the guard with \`observeOnly: true\`, collect \`peakRunawayFactor\` from its reports (or replay saved threads with \`harness-kit eval --simulate-usage\`), and put \`stopAt\` above the highest value of the runs that went well.`,
    "",
  );

  // Decisions per source
  out.push(
    "### Decisions on every source",
    "",
    "Threads with each decision of RunawayGuard alone, and successful runs given a stop (target ≤ 0.5%) or a directive (target ≤ 3%).",
    "",
  );
  const rows: string[][] = [];
  for (const source of SOURCES) {
    const inSource = threads.filter((t) => t.source === source);
    const ok = inSource.filter((t) => t.successful);
    for (const u of USAGES) {
      const stopped = ok.filter((t) => has(t, u, "stop")).length;
      const directed = ok.filter((t) => has(t, u, "directive")).length;
      rows.push([
        `${source} (${inSource.length} threads, ${ok.length} successful)`,
        usageLabel(u),
        `${inSource.filter((t) => has(t, u, "warn")).length}`,
        `${inSource.filter((t) => has(t, u, "directive")).length}`,
        `${inSource.filter((t) => has(t, u, "stop")).length}`,
        ok.length ? `${stopped} (${pct(stopped, ok.length)}) ${mark(stopped / ok.length <= 0.005)}` : "–",
        ok.length ? `${directed} (${pct(directed, ok.length)}) ${mark(directed / ok.length <= 0.03)}` : "–",
      ]);
    }
  }
  for (const u of USAGES) {
    const stopped = successful.filter((t) => has(t, u, "stop")).length;
    const directed = successful.filter((t) => has(t, u, "directive")).length;
    rows.push([
      `**all** (${threads.length} threads, ${successful.length} successful)`,
      usageLabel(u),
      `${threads.filter((t) => has(t, u, "warn")).length}`,
      `${threads.filter((t) => has(t, u, "directive")).length}`,
      `${threads.filter((t) => has(t, u, "stop")).length}`,
      `${stopped} (${pct(stopped, successful.length)}) ${mark(stopped / successful.length <= 0.005)}`,
      `${directed} (${pct(directed, successful.length)}) ${mark(directed / successful.length <= 0.03)}`,
    ]);
  }
  out.push(
    table(
      [
        "source",
        "usage",
        "threads with a warn",
        "with a directive",
        "with a stop",
        "successful runs with a stop",
        "successful runs with a directive",
      ],
      rows,
      [0, 1],
    ),
    "",
  );
  const previousRows = [8_000, 2_000].map((u) => {
    const stopped = successful.filter((t) => crossing(t.points.get(u)!, "previous", PREVIOUS.stopAt) !== undefined);
    const blocked = successful.filter(
      (t) => !stopped.includes(t) && crossing(t.points.get(u)!, "previous", PREVIOUS.blockAt) !== undefined,
    );
    const at = stopped.map((t) => crossing(t.points.get(u)!, "previous", PREVIOUS.stopAt)! + 1);
    return [
      usageLabel(u),
      `${stopped.length} (${pct(stopped.length, successful.length)})`,
      `${blocked.length} (${pct(blocked.length, successful.length)})`,
      stopped.length ? `${percentile(at, 50)}` : "–",
    ];
  });
  out.push(
    `For comparison, the previous measure and defaults (warn ${PREVIOUS.warnAt}×, block ${PREVIOUS.blockAt}×, stop ${PREVIOUS.stopAt}×) on the same successful runs:`,
    "",
    table(
      ["usage", "successful runs reaching the stop", "reaching the block only", "median tool call of the stop"],
      previousRows,
    ),
    "",
  );
  const flagged = successful.flatMap((t) =>
    t.decisions
      .get(8_000)!
      .filter((h) => h.action !== "warn")
      .map((h) => ({ t, h })),
  );
  out.push(
    "Directives and stops on successful runs (8,000-token prompt):",
    "",
    flagged.length
      ? table(
          ["thread", "call", "action", "reason"],
          flagged.map(({ t, h }) => [t.key, `${h.callIndex} (${h.toolCallId})`, h.action, h.reason]),
          [0, 2, 3],
        )
      : "None.",
    "",
  );

  // Runaways
  out.push(
    "### Runaways",
    "",
    `**The incident** (bench/runawayShapes.ts): five inputs of about 30,000 tokens each, then ${INCIDENT.modelCalls} model calls asking for ${INCIDENT.toolCalls} calls of one tool that cycle through the five inputs and get the same excerpts every time; with usage simulated over a ${INCIDENT.systemTokens.toLocaleString("en-US")}-token system prompt it consumes ${tokens(simulatedTotal(incident, INCIDENT.systemTokens))} tokens, ${x(simulatedTotal(incident, INCIDENT.systemTokens) / firstInput(incident, INCIDENT.systemTokens))} its first call's input, the figures of the incident report.`,
    "",
  );
  const incidentRows: string[][] = [];
  for (const u of [8_000, 2_000] as const) {
    const stop = firstStop(incident, (await replayThread(simulateUsage(incident, u), runawayStack())).decisions, u);
    const previous = crossing(measures(simulateUsage(incident, u)), "previous", PREVIOUS.stopAt);
    incidentRows.push([
      usageLabel(u),
      stop
        ? `call ${stop.callIndex + 1} of ${INCIDENT.toolCalls}, after ${tokens(stop.tokens)} of ${tokens(simulatedTotal(incident, u))} tokens`
        : "never",
      previous === undefined ? "never" : `call ${previous + 1}`,
    ]);
  }
  out.push(table(["usage", "RunawayGuard stops at", "the previous measure stopped at"], incidentRows, [0, 1, 2]), "");

  out.push(
    "**The stuck episodes** of test/fixtures/loop-episodes.json, carried on as a runaway would: the thread up to the episode's last call, then the same call again and again, answered with the episode's own results in turn. With the loop guards, every one of them is answered by its 3rd call (see above); this is where RunawayGuard alone stops them, counting occurrences of the repeated call from the episode's first.",
    "",
  );
  const episodeRows: string[][] = [];
  for (const episode of stuck) {
    const carried = carryOn(loaded.get(episode.thread)!, episode.calls, 40);
    const cells = [`${episode.thread} (${episode.calls.length} calls)`, episode.kind];
    for (const u of [8_000, 2_000] as const) {
      const stop = firstStop(carried, (await replayThread(simulateUsage(carried, u), runawayStack())).decisions, u);
      cells.push(stop ? occurrenceAt(carried, episode, stop.callIndex) : "not within 40 more");
    }
    const previous = crossing(measures(simulateUsage(carried, 8_000)), "previous", PREVIOUS.stopAt);
    cells.push(previous === undefined ? "not within 40 more" : occurrenceAt(carried, episode, previous));
    episodeRows.push(cells);
  }
  out.push(
    table(
      [
        "episode",
        "kind",
        "RunawayGuard stops at, 8,000-token prompt",
        "2,000-token prompt",
        "the previous measure stopped at (8,000)",
      ],
      episodeRows,
      [0, 1, 2, 3, 4],
    ),
    "",
  );
  return out;
}

const simulatedTotal = (messages: readonly BaseMessage[], systemTokens: number) =>
  billedTokens(simulateUsage(messages, systemTokens));
const firstInput = (messages: readonly BaseMessage[], systemTokens: number) =>
  (
    simulateUsage(messages, systemTokens).find((m) => messageKind(m) === "ai") as unknown as {
      usage_metadata: { input_tokens: number };
    }
  ).usage_metadata.input_tokens;

/** Which occurrence of a stuck episode's call (recorded, then carried on) the call at `callIndex` is, or would have been. */
function occurrenceAt(carried: readonly BaseMessage[], episode: Episode, callIndex: number): string {
  const ids = carried.flatMap((m) => toolCallsOf(m)).map((c) => c.id);
  const last = ids.indexOf(episode.calls.at(-1)!);
  const positions = [...episode.calls.map((id) => ids.indexOf(id)), ...ids.map((_, i) => i).filter((i) => i > last)];
  if (callIndex < positions[0]!) return "before the episode";
  const k = positions.findIndex((p) => p >= callIndex);
  return k < 0 ? "never" : `occurrence ${k + 1}`;
}
