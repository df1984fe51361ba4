import type { HeadTailCut } from "./preview.js";
import type { BudgetUnit, MediaPart } from "./measure.js";

/**
 * Text the model reads in place of an oversized tool result. Every notice says what was left
 * out and how to get it back (or that it was not kept), so nothing disappears silently.
 */

/** Where the full text went. */
export type PreviewOutcome =
  /**
   * `readHint` (from the store) replaces the retrieval tool's instructions, e.g. "use read_file
   * with ..."; `readFrom`, when the store reads by lines, names the window from a character on.
   */
  | { kind: "stored"; key: string; readHint?: string; readFrom?: (omittedFrom: number) => string }
  | { kind: "not-stored"; reason: string | undefined };

export interface PreviewFacts {
  tool: string;
  /** Characters of the full text. */
  chars: number;
  /** Size in the budget's unit. */
  size: number;
  unit: BudgetUnit;
  limit: number;
  outcome: PreviewOutcome;
}

/** The marker between head and tail. */
export function omittedMarker(omitted: number): string {
  return `[... ${omitted} characters omitted ...]`;
}

/** Read by the model: the full preview, head and tail between a header and a footer. */
export function renderPreview(facts: PreviewFacts, cut: HeadTailCut, suffix = ""): string {
  const parts = [previewHeader(facts, cut)];
  // A head cut after a line break already ends its line; the join supplies the break.
  if (cut.head) parts.push(cut.head.endsWith("\n") ? cut.head.slice(0, -1) : cut.head);
  parts.push(omittedMarker(cut.omitted));
  if (cut.tail) parts.push(cut.tail);
  parts.push(previewFooter(facts, cut));
  if (suffix) parts.push(suffix);
  return parts.join("\n");
}

function sizeText(facts: PreviewFacts): string {
  return facts.unit === "tokens"
    ? `${facts.chars} characters (about ${facts.size} tokens)`
    : `${facts.chars} characters`;
}

function previewHeader(facts: PreviewFacts, cut: HeadTailCut): string {
  const shown =
    cut.head || cut.tail
      ? `Shown: the first ${cut.head.length} and the last ${cut.tail.length} characters.`
      : "None of it fits here.";
  const stored =
    facts.outcome.kind === "stored" ? ` The full result is stored under the key "${facts.outcome.key}".` : "";
  return `[${facts.tool} returned ${sizeText(facts)}, more than the ${facts.limit} ${facts.unit === "tokens" ? "tokens" : "characters"} a result may use here. ${shown}${stored}]`;
}

function previewFooter(facts: PreviewFacts, cut: HeadTailCut): string {
  const outcome = facts.outcome;
  if (outcome.kind === "stored") {
    const how =
      outcome.readFrom?.(cut.omittedFrom) ?? outcome.readHint ?? retrievalToolHint(outcome.key, cut.omittedFrom);
    return `[The omitted part starts at character ${cut.omittedFrom} (line ${lineNumberAt(cut.head)}). To read it, ${how}.]`;
  }
  const why = outcome.reason ? ` (${outcome.reason})` : "";
  return `[The omitted ${cut.omitted} characters were not kept${why}. If you need them, call ${facts.tool} again with narrower arguments, such as a filter, a range or a smaller page.]`;
}

/** 1-based number of the line the first omitted character is on. */
function lineNumberAt(head: string): number {
  let lines = 1;
  for (let i = head.indexOf("\n"); i !== -1; i = head.indexOf("\n", i + 1)) lines++;
  return lines;
}

/** What a read back cut to fit showed, and the window to read on (`LineReader.window`). */
export interface ReadBackCut {
  /** Lines shown, numbered from 1. */
  firstLine: number;
  lastLine: number;
  /** Set when the first line alone was over the budget: how many of its characters are shown. */
  longLine: number | undefined;
  budget: number;
  unit: BudgetUnit;
  window: string;
}

/**
 * Read by the model after a read back of a stored result (a `read_file` of the budget's own
 * file) that was over the budget: it is shown cut, not stored again, and says where to read on.
 */
export function readBackCutNote(cut: ReadBackCut): string {
  const budget = `${cut.budget} ${cut.unit === "tokens" ? "tokens" : "characters"}`;
  const shown =
    cut.longLine === undefined
      ? `Only lines ${cut.firstLine} to ${cut.lastLine} of this read fit the ${budget} a result may use here`
      : `Line ${cut.firstLine} alone is longer than the ${budget} a result may use here: only its first ${cut.longLine} characters are shown`;
  return `[${shown}; the file is already stored, so nothing was stored again. To read on, ${cut.window}.]`;
}

/** Name of the tool the budget registers to read stored results back. */
export const RETRIEVAL_TOOL_NAME = "read_stored_result";

/** Read by the model: how to page through a result kept by the retrieval tool. */
export function retrievalToolHint(key: string, from: number): string {
  return `call ${RETRIEVAL_TOOL_NAME} with key "${key}" and offset ${from}, or with a pattern to list the lines that match it`;
}

/** Read by the model: why the result could not be stored, in one short clause. */
export function storeFailureReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = message.split("\n")[0]!.trim();
  const short = firstLine.length > 120 ? `${firstLine.slice(0, 117)}...` : firstLine;
  return `storing them failed: ${short || "unknown error"}`;
}

/** Read by the model: media blocks that were too large and were removed. */
export function mediaRemovedNote(dropped: readonly MediaPart[]): string {
  const listed = dropped
    .slice(0, 5)
    .map(({ view }) => `${view.blockType} (${view.mediaType ?? "unknown type"}, ${view.payloadSize} characters)`);
  if (dropped.length > 5) listed.push(`${dropped.length - 5} more`);
  const blocks = dropped.length === 1 ? "a media block" : `${dropped.length} media blocks`;
  return `[Removed ${blocks} too large for this result and not kept: ${listed.join(", ")}. If you need what ${dropped.length === 1 ? "it shows" : "they show"}, use a tool that describes or extracts it as text.]`;
}

/** Read by the model when the budget itself failed and fell back to a plain cut. */
export function emergencyCutText(kept: string, total: number): string {
  return `${kept}\n${omittedMarker(total - kept.length)}\n[The result had ${total} characters; only the first ${kept.length} are shown and the rest was not kept. Call the tool again with narrower arguments if you need more.]`;
}

/** Read by the model in its tool list: what the retrieval tool does. */
export const RETRIEVAL_TOOL_DESCRIPTION =
  "Reads a tool result that was too large to show in full and was stored under a key (its preview names the key). " +
  "Give an offset (a character position, 0 by default) and optionally a length to read a slice, " +
  "or a pattern (a regular expression in RE2 syntax, or plain text) to list the lines that match. Each answer is capped and says where to continue.";

/** Read by the model in its tool list: the retrieval tool's arguments. */
export const RETRIEVAL_ARG_DESCRIPTIONS = {
  key: "The key the preview gave, exactly.",
  offset: "Character position to start from; 0 by default.",
  length: "Characters to read; as many as fit by default.",
  pattern: "Regular expression (RE2 syntax) or plain text: list matching lines instead of reading a slice.",
} as const;

/** The retrieval tool's arguments, as a bad-arguments answer names them. */
export type RetrievalArgument = keyof typeof RETRIEVAL_ARG_DESCRIPTIONS;

/** Read by the model (inside `badRetrievalArgumentsText`): what each argument must be. */
const RETRIEVAL_ARG_SHAPES: Readonly<Record<RetrievalArgument, string>> = {
  key: "key must be the text the preview gave",
  offset: "offset must be a number",
  length: "length must be a number",
  pattern: "pattern must be a text",
};

/**
 * Read by the model instead of LangChain's schema error (a screenful with a stack trace) when
 * its arguments to the retrieval tool have the wrong type or are missing.
 */
export function badRetrievalArgumentsText(wrong: readonly RetrievalArgument[]): string {
  const shapes =
    wrong.length > 0 ? wrong.map((name) => RETRIEVAL_ARG_SHAPES[name]).join(", ") : "its arguments must be an object";
  return `${RETRIEVAL_TOOL_NAME} did not run: ${shapes}. Call it again with the key exactly as the preview gave it, and optionally an offset and a length (numbers) or a pattern (text).`;
}

/** Read by the model when the key names nothing stored. */
export function missingKeyText(key: string): string {
  return `Nothing is stored under the key "${key}". Use the key exactly as the preview gave it; if the result is gone, call the original tool again.`;
}

/** Read by the model when the store could not be read. */
export function storeReadFailedText(key: string, error: unknown): string {
  const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return `The result stored under "${key}" could not be read (${reason}). Try again later, or call the original tool again with narrower arguments.`;
}

/** Read by the model when its search pattern is refused; `why` is one of the clauses below. */
export function patternRefusedText(why: string): string {
  return `The pattern was not run: ${why}. Search for a shorter, simpler pattern (RE2 syntax, or plain text).`;
}

/** Read by the model (inside `patternRefusedText`): the pattern is too long. */
export function patternTooLongClause(chars: number, max: number): string {
  return `it has ${chars} characters, more than the ${max} allowed`;
}

/** Read by the model (inside `patternRefusedText`): the repeat counts alone make the program too large. */
export function repeatsTooLargeClause(estimate: number, max: number): string {
  return `its repeat counts make about ${estimate} steps, more than the ${max} allowed; use smaller repeat counts`;
}

/** Read by the model (inside `patternRefusedText`): the compiled program is too large. */
export function programTooLargeClause(size: number, max: number): string {
  return `it compiles to ${size} steps, more than the ${max} allowed; use smaller repeat counts or fewer alternatives`;
}

/** Read by the model (a search's note): why its pattern was searched as plain text. */
export const NOT_RE2_NOTE =
  "it is not a valid RE2 pattern (RE2 has no lookaround or backreferences), so it was searched as plain text";
