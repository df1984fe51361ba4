import type { GuardAction } from "../core/signals.js";
import { ACTIONS, type EvalSummary } from "../replay/evaluate.js";
import type { InspectReport } from "../replay/inspect.js";
import type { ReplayResult, ReplayStop, UnreproducedAnswer } from "../replay/replayThread.js";
import type { OrderEvidence } from "../replay/stackOrder.js";

/** Colours for people at a terminal; plain text everywhere else. */
export interface Palette {
  action(action: GuardAction, text: string): string;
  error(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const sgr = (code: string) => (text: string) => `\x1b[${code}m${text}\x1b[0m`;
const ACTION_COLOURS: Record<GuardAction, (text: string) => string> = {
  warn: sgr("36"),
  directive: sgr("33"),
  stop: sgr("1;31"),
};

export function palette(colour: boolean): Palette {
  if (!colour) {
    const plain = (text: string) => text;
    return { action: (_action, text) => text, error: plain, dim: plain, bold: plain };
  }
  return { action: (action, text) => ACTION_COLOURS[action](text), error: sgr("31"), dim: sgr("2"), bold: sgr("1") };
}

/** Colour only on a terminal that accepts it (https://no-color.org). */
export function wantsColour(isTTY: boolean | undefined, env: Record<string, string | undefined>): boolean {
  return isTTY === true && env.NO_COLOR === undefined && env.TERM !== "dumb";
}

type Cell = { text: string; paint?: (text: string) => string };
type Align = "left" | "right";

/**
 * Columns padded to their widest cell (measured before colouring), two spaces apart. With a
 * `width` (a terminal's), a left-aligned last column longer than the room left is wrapped at
 * spaces onto lines of its own, aligned under it: nothing is cut.
 */
export function table(
  rows: ReadonlyArray<ReadonlyArray<Cell | string>>,
  align: readonly Align[],
  width?: number,
): string[] {
  const cells = rows.map((row) => row.map((cell) => (typeof cell === "string" ? { text: cell } : cell)));
  const widths = align.map((_, c) => Math.max(0, ...cells.map((row) => row[c]?.text.length ?? 0)));
  return cells.flatMap((row) => {
    const last = row.length - 1;
    const start = widths.slice(0, last).reduce((sum, w) => sum + w + 2, 0);
    const wraps = width !== undefined && last === align.length - 1 && align[last] === "left";
    const parts = wraps ? wrapText(row[last]!.text, Math.max(20, width - start)) : [row[last]?.text ?? ""];
    const first = row
      .map((cell, c) => {
        const shown = c === last ? parts[0]! : cell.text;
        const pad = " ".repeat(Math.max(0, widths[c]! - shown.length));
        const text = cell.paint ? cell.paint(shown) : shown;
        if (c === last && align[c] === "left") return text;
        return align[c] === "right" ? pad + text : text + pad;
      })
      .join("  ")
      .trimEnd();
    const paint = row[last]?.paint ?? ((text: string) => text);
    return [first, ...parts.slice(1).map((part) => " ".repeat(start) + paint(part))];
  });
}

/** `text` in lines of at most `width` characters, broken at spaces (a longer word is split). */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    let rest = word;
    while (rest.length > width) {
      if (line) lines.push(line);
      lines.push(rest.slice(0, width));
      rest = rest.slice(width);
      line = "";
    }
    if (!line) line = rest;
    else if (line.length + 1 + rest.length <= width) line += ` ${rest}`;
    else {
      lines.push(line);
      line = rest;
    }
  }
  lines.push(line);
  return lines;
}

const MAX_TOOL_WIDTH = 32;

function clip(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

const number = new Intl.NumberFormat("en-US");

/** `width`: the terminal's columns, to wrap decisions at; without it each decision stays on one line. */
export function renderInspect(report: InspectReport, p: Palette, width?: number): string {
  const header = [
    p.bold(`thread ${report.thread}`) + (report.source !== report.thread ? p.dim(`  (${report.source})`) : ""),
    ...sizeAndOrderLines(report, width),
    "",
  ];
  const rows: Array<Array<Cell | string>> = [
    ["#", "tool", "args", "repeat", "new", "status", "size", "decision"].map((text) => ({ text, paint: p.dim })),
  ];
  for (const row of report.rows) {
    const o = row.observation;
    const status = !o
      ? "unanswered"
      : o.answeredBy
        ? `${o.answeredBy.action}`
        : o.notRun
          ? "not run"
          : o.status === "error"
            ? "error"
            : "ok";
    const statusCell: Cell = { text: status, paint: o?.status === "error" || !o ? p.error : undefined };
    const base: Array<Cell | string> = [
      String(row.callIndex),
      clip(row.tool, MAX_TOOL_WIDTH),
      row.argsFingerprint.slice(0, 8),
      o ? String(o.sameArgsRepeatCount) : "",
      o ? o.newInformationDelta.toFixed(2) : "",
      statusCell,
      o ? number.format(o.resultSize) : "",
    ];
    if (row.decisions.length === 0) {
      rows.push(base);
      continue;
    }
    row.decisions.forEach((d, k) => {
      const cells = k === 0 ? base : base.map(() => "");
      const after = d.shadowedBy
        ? ` (after ${d.shadowedBy} answered it)`
        : d.afterStop
          ? ` (after ${d.afterStop} stopped the run)`
          : "";
      rows.push([
        ...cells,
        {
          text: `${d.action} ${d.guard}${after}: ${d.reason}`,
          paint: (text) => (d.shadowedBy || d.afterStop ? p.dim(text) : p.action(d.action, text)),
        },
      ]);
    });
  }
  const lines = table(rows, ["right", "left", "left", "right", "right", "left", "right", "left"], width);
  const flagged = report.rows.reduce((n, row) => n + row.decisions.length, 0);
  const footer = [
    "",
    flagged === 0
      ? "No decision other than allow."
      : `${flagged} decision${flagged === 1 ? "" : "s"} other than allow.`,
  ];
  return [
    ...header,
    ...lines,
    ...footer,
    ...(report.unreproduced ? ["", ...unreproducedNote(report.unreproduced, p)] : []),
    ...(report.stops ? ["", ...report.stops.map((stop) => stopLine(report.thread, stop))] : []),
    ...renderContextShrinks(report, p),
  ].join("\n");
}

/** The thread's size, the guards replayed and the recorded answers that showed their order; wrapped at `width`. */
function sizeAndOrderLines(report: InspectReport, width: number | undefined): string[] {
  const lines = [
    `${number.format(report.messages)} messages, ${number.format(report.toolCalls)} tool calls; ${orderText(report.guards, report.orderSource)}`,
    ...orderEvidenceLines(report.orderEvidence ?? []),
  ];
  return width === undefined ? lines : lines.flatMap((line) => wrapText(line, width));
}

/** The guards replayed and where their order comes from: replay is only as faithful as that order. */
function orderText(guards: readonly string[], source: string): string {
  return guards.length === 0 ? "guards: none" : `guards, outermost first: ${guards.join(" > ")} (${source})`;
}

/** The recorded answers that showed the live stack's order. */
function orderEvidenceLines(evidence: readonly OrderEvidence[]): string[] {
  return evidence.map(
    ({ outer, inner, toolCallId }) =>
      `  ${outer} was outside ${inner}: it answered ${toolCallId} live, which ${inner} would have answered too`,
  );
}

/** Recorded answers the replay gives otherwise: its decisions are not the live run's. */
function unreproducedNote(unreproduced: readonly UnreproducedAnswer[], p: Palette, thread = ""): string[] {
  const count = `${unreproduced.length} recorded answer${unreproduced.length === 1 ? "" : "s"}`;
  const headline = p.error(
    `${thread}${count} not reproduced: the live stack, or its options, differed from the one replayed (--config)`,
  );
  return [
    headline,
    ...unreproduced.map(
      ({ toolCallId, tool, live, replayed }) =>
        `  ${toolCallId} (${tool}): answered live by ${live}; in the replay ${replayed ? `by ${replayed}` : "the tool runs"}`,
    ),
  ];
}

/** `eval`'s notes on one thread: the order its recorded answers showed, and the answers the replay does not reproduce. */
export function renderThreadNotes(threadId: string, replay: ReplayResult, p: Palette): string[] {
  const notes: string[] = [];
  if (replay.orderEvidence.length > 0) {
    notes.push(
      p.bold(`note: thread ${threadId} replayed as ${replay.order.join(" > ")}, the order its recorded answers show:`),
      ...orderEvidenceLines(replay.orderEvidence),
    );
  }
  if (replay.unreproduced.length > 0)
    notes.push(...unreproducedNote(replay.unreproduced, p, `warning: thread ${threadId}: `));
  for (const stop of replay.stops) notes.push(stopLine(threadId, stop));
  return notes;
}

/** Where a run would have stopped, and what the recorded run spent after that. */
export function stopLine(threadId: string, stop: ReplayStop): string {
  const estimated = stop.tokenSource === "estimate" ? "about " : "";
  const where = stop.atRunStart
    ? `at its start, before the model call of message ${stop.messageIndex}`
    : `at call ${stop.callIndex} (${stop.tool}, message ${stop.messageIndex})`;
  return `stop: thread ${threadId}: ${stop.guard} stops the run ${where}; after it the run made ${plural(stop.modelCallsAfter, "model call")} and ${plural(stop.toolCallsAfter, "tool call")}, ${estimated}${number.format(stop.tokensAfter)} tokens`;
}

function plural(n: number, noun: string): string {
  return `${number.format(n)} ${noun}${n === 1 ? "" : "s"}`;
}

/** The requests the context-overflow guard shrank: what each answer's request left out, and where it is kept. */
function renderContextShrinks(report: InspectReport, p: Palette): string[] {
  const shrinks = report.contextShrinks ?? [];
  if (shrinks.length === 0) return [];
  const lines = [
    "",
    p.bold(`${shrinks.length} request${shrinks.length === 1 ? "" : "s"} shrunk by ContextOverflowGuardMiddleware:`),
  ];
  for (const s of shrinks) {
    const parts = [
      s.previewed && `${s.previewed} previewed`,
      s.stubbed && `${s.stubbed} replaced by a notice`,
      s.dropped && `${s.dropped} left out`,
    ]
      .filter(Boolean)
      .join(", ");
    const keys =
      s.keys.length > 3 ? `${s.keys.slice(0, 3).join(", ")} and ${s.keys.length - 3} more` : s.keys.join(", ");
    const window = s.window === undefined ? "" : ` (window ${number.format(s.window)})`;
    const after = s.reason === "overflow_recovered" ? ", after the provider refused it" : "";
    lines.push(
      `  answer at message ${s.messageIndex}: about ${number.format(s.fullTokens)} → ${number.format(s.sentTokens)} tokens${window}${after}; ${parts || "nothing"}${keys ? `; kept under ${keys}` : ""}`,
    );
  }
  return lines;
}

export function renderSummary(summary: EvalSummary, p: Palette): string {
  const seconds = summary.elapsedMs / 1000;
  const rate = seconds > 0 ? summary.toolCalls / seconds : 0;
  const lines = [
    p.bold("harness-kit eval"),
    `threads     ${number.format(summary.threads)}${summary.failed ? p.error(`  (${number.format(summary.failed)} could not be loaded)`) : ""}`,
    `tool calls  ${number.format(summary.toolCalls)}`,
    `throughput  ${number.format(Math.round(rate))} tool calls/s  (${seconds.toFixed(2)} s)`,
    `order       ${summary.guards.join(" > ")}  (outermost first; ${summary.orderSource})`,
    ...(summary.threadsReordered === 0
      ? []
      : [
          `            ${number.format(summary.threadsReordered)} thread${summary.threadsReordered === 1 ? "" : "s"} replayed in another order, the one their recorded answers show`,
        ]),
    ...(summary.threadsUnreproduced === 0
      ? []
      : [
          p.error(
            `            ${number.format(summary.threadsUnreproduced)} thread${summary.threadsUnreproduced === 1 ? " has" : "s have"} recorded answers the replay does not reproduce`,
          ),
        ]),
    ...(summary.simulatedSystemTokens === undefined
      ? []
      : [
          `usage       simulated where not recorded: ${number.format(summary.simulatedSystemTokens)}-token system prompt + the history, 4 characters a token`,
        ]),
    `stopped     ${number.format(summary.threadsStopped)} thread${summary.threadsStopped === 1 ? "" : "s"} (${percent(summary.threadsStopped, summary.threads)}); after the stops their runs made ${plural(summary.afterStops.modelCalls, "model call")} and ${plural(summary.afterStops.toolCalls, "tool call")}, ${number.format(summary.afterStops.tokens)} tokens`,
    "",
  ];
  const header: Cell[] = ["guard", ...ACTIONS.map((a) => `${a}s`), ...ACTIONS.map((a) => `threads with ${a}`)].map(
    (text) => ({ text, paint: p.dim }),
  );
  const rows: Array<Array<Cell | string>> = [header];
  for (const guard of summary.guards) {
    const decisions = summary.decisions[guard]!;
    const threads = summary.threadsWith[guard]!;
    rows.push([
      guard,
      ...ACTIONS.map((a) => ({
        text: number.format(decisions[a]),
        paint: decisions[a] ? (t: string) => p.action(a, t) : undefined,
      })),
      ...ACTIONS.map((a) => `${number.format(threads[a])} (${percent(threads[a], summary.threads)})`),
    ]);
  }
  lines.push(...table(rows, ["left", "right", "right", "right", "right", "right", "right"]));
  return lines.join("\n");
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "0%" : `${((100 * part) / whole).toFixed(1)}%`;
}

/**
 * `eval --jsonl`: one JSON line per decision the stack acted on, `{thread, toolCallId, tool, guard,
 * action, reason}`; a judgement an outer guard shadowed, or made after the run would have stopped,
 * is left out, as it is from the totals (the stop itself goes to stderr with the thread's notes).
 */
export function renderDecisionLines(threadId: string, replay: ReplayResult): string {
  let out = "";
  for (const d of replay.decisions) {
    if (d.shadowedBy || d.afterStop) continue;
    out += `${JSON.stringify({ thread: threadId, toolCallId: d.toolCallId, tool: d.tool, guard: d.guard, action: d.action, reason: d.reason })}\n`;
  }
  return out;
}

/** A one-line, self-overwriting progress report for a terminal. */
export function progressLine(done: number, total: number, toolCalls: number, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? Math.round((toolCalls * 1000) / elapsedMs) : 0;
  return `\r\x1b[Kreplaying ${number.format(done)}/${number.format(total)} threads, ${number.format(toolCalls)} tool calls, ${number.format(rate)} calls/s`;
}

export const CLEAR_LINE = "\r\x1b[K";
