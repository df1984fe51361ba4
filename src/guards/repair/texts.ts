import type { ArgumentProblem } from "./parseArguments.js";

/** Longest excerpt of the model's raw arguments quoted back to it. */
const EXCERPT_CHARS = 80;

/** Read by the model: why its malformed call did not run, quoting where the text goes wrong. */
export function malformedCallText(tool: string, problem: ArgumentProblem, raw: unknown): string {
  const excerpt = typeof raw === "string" ? excerptAt(raw, problem) : "";
  const where = excerpt === "" ? "" : ` (${excerpt})`;
  return `Your call to ${tool} was not run: its arguments ${problemPhrase(problem)}${where}. Send the call again with complete, valid JSON arguments.`;
}

/** Read by the model: a syntax repair worked, but the repaired arguments break the tool's schema. */
export function repairedButInvalidText(tool: string, issues: readonly string[]): string {
  return `Your call to ${tool} was not run: its arguments were not valid JSON, and even with the syntax fixed they do not match the tool's schema (${issues.join("; ")}). Send the call again with valid arguments.`;
}

/** Read by the model: the arguments of a call break the tool's schema. */
export function schemaMismatchText(tool: string, issues: readonly string[]): string {
  return `The arguments for ${tool} do not match its schema: ${issues.join("; ")}. Fix them and call ${tool} again.`;
}

/** Read by the model: the tool it called does not exist (or it named none). */
export function unknownToolText(name: string, closest: readonly string[]): string {
  const what = name === "" ? "Your tool call names no tool" : `Tool "${name}" does not exist`;
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

/** Read by the model: in place of an empty result, so that silence is not mistaken for an answer. */
export function emptyResultText(tool: string): string {
  return `(${tool} returned no output)`;
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
    text = source.name && source.name !== "Error" && !message.startsWith(source.name) ? `${source.name}: ${message}` : message;
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

function problemPhrase(problem: ArgumentProblem): string {
  switch (problem.kind) {
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
