import type { ArgumentProblem } from "./parseArguments.js";

/** Longest excerpt of the model's raw arguments quoted back to it. */
const EXCERPT_CHARS = 80;
/** Longest invented tool name quoted back to the model. */
const SHOWN_NAME_CHARS = 64;

/** Read by the model: why its malformed call did not run, quoting where the text goes wrong, and what to send instead. */
export function malformedCallText(tool: string, problem: ArgumentProblem, raw: unknown): string {
  const excerpt = typeof raw === "string" ? excerptAt(raw, problem) : "";
  const where = excerpt === "" ? "" : ` (${excerpt})`;
  return `Your call to ${tool} was not run: its arguments ${problemPhrase(problem)}${where}. ${adviceFor(problem)}`;
}

/** Read by the model: a syntax repair worked, but the repaired arguments break the tool's schema. */
export function repairedButInvalidText(tool: string, issues: readonly string[]): string {
  return `Your call to ${tool} was not run: its arguments were not valid JSON, and even with the syntax fixed they do not match the tool's schema (${issues.join("; ")}). Send the call again with valid arguments.`;
}

/** Read by the model: the arguments of a call break the tool's schema. */
export function schemaMismatchText(tool: string, issues: readonly string[]): string {
  return `The arguments for ${tool} do not match its schema: ${issues.join("; ")}. Fix them and call ${tool} again.`;
}

/** Read by the model, as one of a schema answer's issues: one problem, naming the argument it is in. */
export function schemaIssueText(path: readonly PropertyKey[], message: string | undefined): string {
  const where = path.map(String).join(".");
  const what = message ?? "is invalid";
  return where === "" ? what : `${where}: ${what}`;
}

/** Read by the model, as a schema answer's issue when the schema gave no specific one. */
export function unexplainedMismatchText(): string {
  return "the arguments do not match the schema";
}

/** Read by the model, as a schema answer's last issue: how many more were left out. */
export function moreIssuesText(count: number): string {
  return `and ${count} more`;
}

/** Read by the model: the tool it called does not exist (or it named none). */
export function unknownToolText(name: string, closest: readonly string[]): string {
  const what = name === "" ? "Your tool call names no tool" : `Tool ${shownName(name)} does not exist`;
  if (closest.length === 0) return `${what} and no tools are available; continue without calling tools.`;
  return `${what}. The closest available tools are ${closest.join(", ")}; call one of those instead.`;
}

/** Read by the user: why the run stopped. */
export function unusableCallsStopReason(count: number): string {
  return `the model made ${count} tool calls that cannot run (tools that do not exist or arguments that are not valid JSON) since the last user message`;
}

/** Read by the model: the default text for a tool that threw. */
export function toolFailedText(tool: string, error: unknown): string {
  return `Tool "${tool}" failed: ${shortErrorText(error)}`;
}

/** Read by the model: the tool's result could not be turned into text, so nothing of it survives. */
export function lostResultText(tool: string): string {
  return `Tool "${tool}" ran, but its result could not be turned into text (it holds a value JSON cannot represent, such as a BigInt or a circular reference), so the result is lost. Do not repeat the call expecting a different answer.`;
}

/**
 * The first line of an error's message, without the stack trace LangChain's own messages
 * include, prefixed with the error's class when that adds something.
 */
export function shortErrorText(error: unknown, maxChars = 300): string {
  let text: string;
  if (error instanceof Error) {
    const inner = (error as { toolError?: unknown }).toolError;
    const source = inner instanceof Error ? inner : error;
    const message = withoutStack(source.message);
    text =
      source.name && source.name !== "Error" && !message.startsWith(source.name)
        ? `${source.name}: ${message}`
        : message;
  } else {
    text = typeof error === "string" ? error : safeString(error);
  }
  text = text.replace(/\s+/g, " ").trim() || "unknown error";
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

function withoutStack(message: string): string {
  const lines = message.split("\n");
  const kept: string[] = [];
  for (const line of lines) {
    if (/^\s+at\s/.test(line)) break;
    kept.push(line);
  }
  return kept.join(" ");
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return "unprintable error value";
  }
}

/** A tool name as quoted to the model: whitespace folded, and cut with its length when long. */
function shownName(name: string): string {
  const folded = name.replace(/\s+/g, " ");
  if (folded.length <= SHOWN_NAME_CHARS) return JSON.stringify(folded);
  return `${JSON.stringify(`${folded.slice(0, SHOWN_NAME_CHARS)}…`)} (${name.length.toLocaleString("en-US")} characters)`;
}

/** What to send instead, for each way arguments can be unusable. */
function adviceFor(problem: ArgumentProblem): string {
  switch (problem.kind) {
    case "imprecise_number":
      return `Send the call again with the exact value, as a string ("${problem.literal.slice(0, 40)}") if the tool accepts one.`;
    case "not_json_value":
      return `Send a number, true, false or null, or the word in quotes ("${problem.word.slice(0, 20)}") if you mean the text.`;
    case "invalid_escape":
      return 'Write each backslash that belongs to the text as \\\\ (for example "C:\\\\Users\\\\new") and send the call again.';
    case "unclosed":
      return "Send the whole call again, with every argument and the closing brackets.";
    case "adjacent_strings":
      return "Separate list items with commas, or join the text into one string, and send the call again.";
    case "empty_item":
      return "Remove the extra comma or give the item a value, and send the call again.";
    default:
      return "Send the call again with complete, valid JSON arguments.";
  }
}

function problemPhrase(problem: ArgumentProblem): string {
  switch (problem.kind) {
    case "imprecise_number":
      return `contain the number ${problem.literal.slice(0, 40)}${problem.literal.length > 40 ? "…" : ""}, which JSON parsers read as ${problem.read}`;
    case "not_json_value":
      return `contain ${problem.word.slice(0, 20)}, which is not a JSON value`;
    case "invalid_escape": {
      const escape = /^\\[\s\x00-\x1f]/.test(problem.escape)
        ? "a backslash before a line break"
        : problem.escape.slice(0, 8);
      return `contain ${escape} in a string, which is not a JSON escape, so the other backslashes in it are in doubt too`;
    }
    case "unclosed":
      return problem.depth === 1
        ? `end without the closing "}"${problem.lastKey ? `, so arguments after "${problem.lastKey.slice(0, 40)}" may have been cut off` : ""}`
        : "end with brackets still open, so items or arguments may have been cut off";
    case "adjacent_strings":
      return "have two strings side by side with no comma, which reads as two items or as one joined string";
    case "empty_item":
      return 'have an empty item in a list (",,")';
    case "cut_off":
      switch (problem.what) {
        case "number":
          return "end in the middle of a number, so the number may be cut off";
        case "literal":
          return "end in a cut-off value (not a complete true, false or null)";
        case "string":
          return "end inside a string that has no closing quote, so the text is cut off";
        case "key":
          return "end inside a key name, so the rest of the arguments is missing";
        case "word":
          return "end in an unquoted value that may be cut off";
        case "after_comma":
          return "end right after a comma, so the rest of the arguments is missing";
      }
      break;
    case "key_without_value":
      return `give key "${problem.key}" no value`;
    case "elided_items":
      return `contain "..." in place of items`;
    case "surrounding_text":
      return "have text around the JSON object";
    case "stray_text":
      return "contain text that is not JSON";
    case "ambiguous_repair":
      return "are not valid JSON and cannot be repaired without guessing";
    case "duplicate_key":
      return `give key "${problem.key}" twice${problem.path === "$" ? "" : ` (in ${problem.path.slice(2)})`}`;
    case "not_an_object":
      return `are ${problem.found}, not a JSON object`;
    case "unrepairable":
      return `are not valid JSON (${problem.detail})`;
    case "missing":
      return "are empty";
  }
  return "are not valid JSON";
}

function excerptAt(raw: string, problem: ArgumentProblem): string {
  if (raw.trim() === "") return "";
  const at = "at" in problem ? problem.at : raw.length;
  const atEnd = problem.kind === "cut_off" || at >= raw.length - EXCERPT_CHARS / 2;
  const start = atEnd ? Math.max(0, raw.length - EXCERPT_CHARS) : Math.max(0, at - EXCERPT_CHARS / 4);
  const end = Math.min(raw.length, start + EXCERPT_CHARS);
  const body = raw.slice(start, end).replace(/\s+/g, " ");
  return `near: ${start > 0 ? "…" : ""}${body}${end < raw.length ? "…" : ""}`;
}
