import { canonicalJson } from "../../observe/canonical.js";
import { findHtmlInJson, isHtmlDocument } from "./html.js";
import type { OutputErrorClass, ResolvedSpec } from "./spec.js";

export type OutputVerdict =
  | {
      valid: true;
      /** The parsed value (schema output when a schema is set; the text for text outputs). */
      value: unknown;
      /** The content the model should read instead, when the spec asks for normalised JSON. */
      normalized?: string;
    }
  | {
      valid: false;
      errorClass: OutputErrorClass;
      detail: string;
      /** `ToolOutputInvalid: <errorClass>: <detail>`, the first line of what the model reads. */
      reason: string;
    };

export interface ValidatedCall {
  name: string;
  args: unknown;
}

/** Longest detail a reason carries: enough to act on, short enough for a signal or a log line. */
const MAX_DETAIL = 300;

/**
 * Checks one tool output against its spec. Pure and synchronous; it never throws, whatever the
 * content or the user's schema and invariants do (a throwing check makes the output invalid,
 * because untrusted data must not pass on a checker's failure). JSON is parsed strictly: no
 * repair, no fences stripped, no prose tolerated around it.
 */
export function validateOutput(content: unknown, spec: ResolvedSpec, call: ValidatedCall): OutputVerdict {
  const text = plainText(content);
  if (text === undefined) return invalid("unexpected_content_blocks", "the output holds images, files or other non-text blocks");
  if (text.length > spec.maxChars) return invalid("oversized", `${text.length} characters, over maxChars ${spec.maxChars}`);
  if (spec.contentType === "text") return checkValue(text, spec, call, false);

  if (!/\S/.test(text)) return invalid("empty", "expected JSON, got empty output");
  if (isHtmlDocument(text)) return invalid("html_instead_of_json", "expected JSON, got an HTML page");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return endsOpen(text)
      ? invalid("json_truncated", `the JSON ends before its last value, string or bracket is closed (${text.length} characters)`)
      : invalid("json_invalid", errorText(error));
  }
  const htmlAt = findHtmlInJson(parsed);
  if (htmlAt !== undefined) return invalid("html_instead_of_json", `field ${htmlAt} holds an HTML page`);
  const reported = reportedError(parsed, spec.errorFields);
  if (reported !== undefined) return invalid("error_in_payload", reported);
  return checkValue(parsed, spec, call, spec.normalize);
}

function checkValue(value: unknown, spec: ResolvedSpec, call: ValidatedCall, normalize: boolean): OutputVerdict {
  let checked = value;
  if (spec.schema) {
    let result: ReturnType<NonNullable<ResolvedSpec["schema"]>["safeParse"]>;
    try {
      result = spec.schema.safeParse(value);
    } catch (error) {
      return invalid("schema_invalid", `the schema could not run: ${errorText(error)}`);
    }
    if (!result.success) return invalid("schema_invalid", describeIssues(result.error.issues));
    checked = result.data;
  }
  for (let i = 0; i < spec.invariants.length; i++) {
    let broken: unknown;
    try {
      broken = spec.invariants[i]!(checked, call);
    } catch (error) {
      return invalid("invariant_failed", `invariant ${i + 1} threw ${errorText(error)}`);
    }
    if (typeof broken === "string" && broken !== "") return invalid("invariant_failed", broken);
  }
  return normalize ? { valid: true, value: checked, normalized: jsonText(checked) } : { valid: true, value: checked };
}

function invalid(errorClass: OutputErrorClass, detail: string): OutputVerdict {
  const short = detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL - 1)}…` : detail;
  return { valid: false, errorClass, detail: short, reason: `ToolOutputInvalid: ${errorClass}: ${short}` };
}

/** The text of a string or of text-only content blocks; undefined when other blocks are present. */
function plainText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) return canonicalJson(content);
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === "string") parts.push(block);
    else if (isTextBlock(block)) parts.push(block.text);
    else return undefined;
  }
  return parts.join("\n");
}

function isTextBlock(block: unknown): block is { type: "text"; text: string } {
  const b = block as { type?: unknown; text?: unknown } | null;
  return b !== null && typeof b === "object" && b.type === "text" && typeof b.text === "string";
}

/**
 * Whether unparsable JSON was cut off (a string or bracket still open at the end) rather than
 * malformed in the middle, so the reason can say which.
 */
export function endsOpen(text: string): boolean {
  const open: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") open.push(c);
    else if (c === "}" || c === "]") {
      if (open.pop() !== (c === "}" ? "{" : "[")) return false;
    }
  }
  return inString || open.length > 0;
}

/** A top-level error field with a value: the "success" wrapper that carries a failure. */
function reportedError(parsed: unknown, fields: readonly string[]): string | undefined {
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const record = parsed as Record<string, unknown>;
  for (const field of fields) {
    if (!Object.prototype.hasOwnProperty.call(record, field)) continue;
    const value = record[field];
    if (isUnset(value)) continue;
    const shown = canonicalJson(value);
    return `field ${field} reports a failure: ${shown.length > 160 ? `${shown.slice(0, 159)}…` : shown}`;
  }
  return undefined;
}

function isUnset(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === "" || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}

interface IssueLike {
  path: readonly PropertyKey[];
  message: string;
}

/** `plan: expected one of "free"|"pro"` — the first issue, its path, and how many more there are. */
export function describeIssues(issues: readonly IssueLike[]): string {
  const first = issues[0];
  if (!first) return "(root): rejected by the schema";
  // zod prefixes messages with a category ("Invalid option: ", "Too small: "); the class already says it.
  const message = first.message.replace(/^[A-Z][a-z]*(?: [a-z]+)*: /, "");
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? "s" : ""})` : "";
  return `${formatPath(first.path)}: ${message}${more}`;
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(root)";
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

function jsonText(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    if (typeof text === "string") return text;
  } catch {
    // a schema transform produced something JSON cannot spell (BigInt, a cycle)
  }
  return canonicalJson(value);
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
