import type { BaseMessage } from "@langchain/core/messages";
import { readMark } from "../core/marks.js";
import { messageKind, toolCallsOf } from "../core/messages.js";
import { canonicalJson } from "../observe/canonical.js";
import { contentText } from "../observe/content.js";
import type { InspectReport, InspectRow } from "../replay/inspect.js";

/** Characters of a message or result shown before it is trimmed. */
const SHOWN_CHARS = 600;
/** Characters of a call's arguments shown before they are trimmed. */
const SHOWN_ARGS = 300;

/**
 * One self-contained HTML page (no script, no external asset) showing a thread as a timeline:
 * what the user asked, each model turn and its tool calls, each result (trimmed), and every
 * guard decision on the call it concerns, so a person sees at a glance where a run went in
 * circles. All thread text is untrusted (tool output above all): every piece of it is escaped,
 * and the page's Content-Security-Policy forbids scripts and remote loads besides.
 */
export function renderHtml(messages: readonly BaseMessage[], report: InspectReport): string {
  const rowsById = new Map(report.rows.map((row) => [row.toolCallId, row]));
  const toolNames = new Map(
    messages.flatMap((message) =>
      messageKind(message) === "ai" ? toolCallsOf(message).map((call) => [call.id, call.name] as const) : [],
    ),
  );
  const entries = messages.map((message, index) => entryHtml(message, index, rowsById, toolNames)).join("\n");
  const decisions = report.rows.reduce((n, row) => n + row.decisions.length, 0);
  return `${pageHead(`harness-kit: thread ${report.thread}`, STYLE)}
<body>
<header>
<h1>thread ${esc(report.thread)}</h1>
<p class="meta">${esc(report.source)} · ${report.messages} messages · ${report.toolCalls} tool calls · guards replayed, outermost first: ${esc(report.guards.join(" > ") || "none")} (${esc(report.orderSource)})</p>
<p class="meta">${decisions === 0 ? "No guard decision other than allow." : `${decisions} guard decision${decisions === 1 ? "" : "s"} other than allow.`}</p>
${strip(report.rows)}
</header>
<main>
${entries}
</main>
</body>
</html>
`;
}

/** Every tool call as one square, in order: repeats and guard decisions stand out as a pattern. */
function strip(rows: readonly InspectRow[]): string {
  if (rows.length === 0) return "";
  const cells = rows
    .map((row) => {
      const worst = worstAction(row);
      const repeat = row.observation?.sameArgsRepeatCount ?? 0;
      const label = `#${row.callIndex} ${row.tool}${repeat > 0 ? ` (repeat ${repeat})` : ""}${worst ? `: ${worst}` : ""}`;
      return `<a class="cell tool-${hue(row.tool)}${worst ? ` act-${worst}` : ""}${repeat > 0 ? " repeat" : ""}" href="#call-${row.callIndex}" title="${esc(label)}"></a>`;
    })
    .join("");
  return `<nav class="strip" aria-label="tool calls in order">${cells}</nav>`;
}

function entryHtml(
  message: BaseMessage,
  index: number,
  rowsById: ReadonlyMap<string, InspectRow>,
  toolNames: ReadonlyMap<string, string>,
): string {
  const kind = messageKind(message);
  const text = safeText(message);
  if (kind === "ai") {
    const calls = toolCallsOf(message)
      .map((call) => callHtml(call.name, call.args, rowsById.get(call.id)))
      .join("\n");
    return `<section class="entry ai"><div class="who">model #${index}</div>${markHtml(message)}${text ? trimmed(text, SHOWN_CHARS) : ""}${calls}</section>`;
  }
  if (kind === "tool") {
    const callId = (message as { tool_call_id?: unknown }).tool_call_id;
    const status = resultStatus(message, rowsById.get(String(callId)));
    const by = markHtml(message);
    const name =
      typeof message.name === "string" && message.name ? message.name : (toolNames.get(String(callId)) ?? "a tool");
    return `<section class="entry tool ${status}"><div class="who">result of ${esc(name)} · ${status} · ${text.length.toLocaleString("en-US")} characters</div>${by}${trimmed(text, SHOWN_CHARS)}</section>`;
  }
  const who = kind === "human" ? "user" : kind === "system" ? "system" : esc(kind);
  return `<section class="entry ${kind === "human" ? "human" : "other"}"><div class="who">${who}</div>${trimmed(text, SHOWN_CHARS)}</section>`;
}

/** Who among the guards wrote or changed this message (a refusal, a replaced result, a stop notice). */
function markHtml(message: BaseMessage): string {
  const mark = readMark(message);
  if (!mark) return "";
  const why =
    typeof mark.reason === "string" ? mark.reason : typeof mark.stopReason === "string" ? mark.stopReason : "";
  return `<div class="mark act-${esc(mark.action)}">${esc(mark.action)} by ${esc(mark.guard)}${why ? `: ${esc(why)}` : ""}</div>`;
}

function callHtml(tool: string, args: unknown, row: InspectRow | undefined): string {
  const o = row?.observation;
  const facts = o
    ? [
        `repeat ${o.sameArgsRepeatCount}`,
        `new ${o.newInformationDelta.toFixed(2)}`,
        o.answeredBy
          ? `answered by ${o.answeredBy.guard}`
          : o.notRun
            ? "not run"
            : o.status === "error"
              ? "error"
              : "ok",
      ]
    : ["unanswered"];
  // As the text view: a decision an outer guard had already answered (or made after the run
  // would have stopped) is shown, dimmed, and said so; it never ran live.
  const decisions = (row?.decisions ?? [])
    .map((d) => {
      const after = d.shadowedBy
        ? ` (after ${d.shadowedBy} answered it)`
        : d.afterStop
          ? ` (after ${d.afterStop} stopped the run)`
          : "";
      return `<li class="act-${esc(d.action)}${after ? " moot" : ""}"><b>${esc(d.action)}</b> ${esc(d.guard)}${esc(after)}: ${esc(d.reason)}</li>`;
    })
    .join("");
  const id = row ? ` id="call-${row.callIndex}"` : "";
  return `<div class="call${row && worstAction(row) ? ` act-${worstAction(row)}` : ""}"${id}><div class="head"><span class="tool tool-${hue(tool)}">${esc(tool)}</span> <span class="facts">${esc(facts.join(" · "))}</span></div>${trimmed(argsText(args), SHOWN_ARGS, "args")}${decisions ? `<ul class="decisions">${decisions}</ul>` : ""}</div>`;
}

/** The result's status as the replay read it (what the call shows too); the message's own without a row. */
function resultStatus(message: BaseMessage, row: InspectRow | undefined): "error" | "ok" {
  const status = row?.observation?.status ?? (message as { status?: unknown }).status;
  return status === "error" ? "error" : "ok";
}

/** The strongest decision that would have acted: moot ones (answered or stopped before) do not count. */
function worstAction(row: InspectRow): "stop" | "directive" | "warn" | undefined {
  const actions = new Set(row.decisions.filter((d) => !d.shadowedBy && !d.afterStop).map((d) => d.action));
  return actions.has("stop")
    ? "stop"
    : actions.has("directive")
      ? "directive"
      : actions.has("warn")
        ? "warn"
        : undefined;
}

function trimmed(text: string, limit: number, cls = "text"): string {
  if (text.length <= limit) return `<pre class="${cls}">${esc(text)}</pre>`;
  return `<pre class="${cls}">${esc(text.slice(0, limit))}<span class="cut"> … ${(text.length - limit).toLocaleString("en-US")} more characters</span></pre>`;
}

function safeText(message: BaseMessage): string {
  try {
    return contentText(message.content);
  } catch {
    return "[content that cannot be shown as text]";
  }
}

function argsText(args: unknown): string {
  try {
    return canonicalJson(args ?? {});
  } catch {
    return String(args);
  }
}

/** One of 8 colours per tool name, so the same tool looks the same along the strip. */
function hue(tool: string): number {
  let h = 2166136261;
  for (let i = 0; i < tool.length; i++) h = Math.imul(h ^ tool.charCodeAt(i), 16777619) >>> 0;
  return h % 8;
}

/** Text as HTML text or attribute value: nothing in it can open a tag or leave an attribute. */
/**
 * The start of a self-contained page, to `</head>`: its policy lets nothing load or run (no
 * script, no request), only the inline `style` and images inlined as data.
 */
export function pageHead(title: string, style: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${style}</style>
</head>`;
}

export function esc(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{padding:16px 24px;background:#fff;border-bottom:1px solid #dde1e6;position:sticky;top:0}
h1{font-size:18px;margin:0 0 4px}
.meta{margin:2px 0;color:#5b6475}
main{padding:16px 24px;max-width:1100px}
.strip{display:flex;flex-wrap:wrap;gap:3px;margin-top:10px}
.cell{width:14px;height:14px;border-radius:3px;display:block;border:2px solid transparent}
.cell.repeat{opacity:.75}
.cell.act-warn{border-color:#0a8fa6}.cell.act-directive{border-color:#c77700}.cell.act-stop{border-color:#c62828;box-shadow:0 0 0 1px #c62828}
.tool-0{background:#8ab6f9}.tool-1{background:#a5d6a7}.tool-2{background:#ffcc80}.tool-3{background:#ce93d8}
.tool-4{background:#80deea}.tool-5{background:#f48fb1}.tool-6{background:#c5e1a5}.tool-7{background:#bcaaa4}
.entry{background:#fff;border:1px solid #dde1e6;border-left:4px solid #9aa3b2;border-radius:6px;margin:0 0 10px;padding:8px 12px}
.entry.human{border-left-color:#3f6ad8}.entry.ai{border-left-color:#6b4fbb}.entry.tool{border-left-color:#4c9a52;margin-left:28px}
.entry.tool.error{border-left-color:#c62828}
.who{font-size:12px;color:#5b6475;text-transform:uppercase;letter-spacing:.03em;margin-bottom:4px}
pre{white-space:pre-wrap;word-break:break-word;margin:4px 0;font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
pre.args{color:#37415a;background:#f1f3f7;padding:4px 6px;border-radius:4px}
.cut{color:#8a93a6;font-style:italic}
.call{border-top:1px dashed #dde1e6;padding-top:6px;margin-top:6px}
.call.act-directive{background:#fff8e6}.call.act-stop{background:#fdecec}.call.act-warn{background:#e9f7fa}
.head .tool{padding:1px 6px;border-radius:4px;font-weight:600}
.facts{color:#5b6475;font-size:12px}
.decisions{margin:4px 0 2px;padding-left:18px}
li.act-warn b{color:#0a7f94}li.act-directive b{color:#b36b00}li.act-stop b{color:#c62828}
li.moot{opacity:.55}
.mark{font-size:12.5px;margin:2px 0}.mark.act-directive{color:#b36b00}.mark.act-stop{color:#c62828}.mark.act-warn{color:#0a7f94}
`;
