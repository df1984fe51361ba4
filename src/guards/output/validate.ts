import { z } from "zod";
import { canonicalJson } from "../../observe/canonical.js";
import { declaredKeysOf, fieldPath } from "./fieldPath.js";
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
      /** The fault in the validator's own words: field names, classes and lengths, never payload text. */
      detail: string;
      /** `ToolOutputInvalid: <errorClass>: <detail>`, the first line of what the model reads. */
      reason: string;
      /** Payload text worth showing (what an error field said): shown only inside the envelope of an enveloped tool. */
      quoted?: string;
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
  if (text === undefined)
    return invalid("unexpected_content_blocks", "the output holds images, files or other non-text blocks");
  if (text.length > spec.maxChars)
    return invalid("oversized", `${text.length} characters, over maxChars ${spec.maxChars}`);
  if (spec.contentType === "text") return checkValue(text, spec, call, false);

  if (!/\S/.test(text)) return invalid("empty", "expected JSON, got empty output");
  if (isHtmlDocument(text)) return invalid("html_instead_of_json", "expected JSON, got an HTML page");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return endsOpen(text)
      ? invalid(
          "json_truncated",
          `the JSON ends before its last value, string or bracket is closed (${text.length} characters)`,
        )
      : invalid("json_invalid", jsonErrorText(error, text.length));
  }
  const htmlAt = findHtmlInJson(parsed);
  if (htmlAt !== undefined) return invalid("html_instead_of_json", `field ${htmlAt} holds an HTML page`);
  const reported = reportedError(parsed, spec.errorFields);
  if (reported !== undefined) return { ...invalid("error_in_payload", reported.detail), quoted: reported.quoted };
  return checkValue(parsed, spec, call, spec.normalize);
}

function checkValue(value: unknown, spec: ResolvedSpec, call: ValidatedCall, normalize: boolean): OutputVerdict {
  let checked = value;
  if (spec.schema) {
    let result: ReturnType<NonNullable<ResolvedSpec["schema"]>["safeParse"]>;
    try {
      result = spec.schema.safeParse(value);
    } catch (error) {
      return invalid("schema_invalid", `the schema could not run (${errorName(error)})`);
    }
    if (!result.success)
      return invalid(
        "schema_invalid",
        describeIssues(result.error.issues, declaredKeysOf(spec.schema, z.toJSONSchema)),
      );
    checked = result.data;
  }
  for (let i = 0; i < spec.invariants.length; i++) {
    let broken: unknown;
    try {
      broken = spec.invariants[i]!(checked, call);
    } catch (error) {
      return invalid("invariant_failed", `invariant ${i + 1} threw ${errorName(error)}`);
    }
    if (typeof broken === "string" && broken !== "") return invalid("invariant_failed", broken);
  }
  return normalize ? { valid: true, value: checked, normalized: jsonText(checked) } : { valid: true, value: checked };
}

function invalid(errorClass: OutputErrorClass, detail: string): Extract<OutputVerdict, { valid: false }> {
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

/** A top-level error field with a value: the "success" wrapper that carries a failure. The field name is the spec's. */
function reportedError(parsed: unknown, fields: readonly string[]): { detail: string; quoted: string } | undefined {
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const record = parsed as Record<string, unknown>;
  for (const field of fields) {
    if (!Object.prototype.hasOwnProperty.call(record, field)) continue;
    const value = record[field];
    if (isUnset(value)) continue;
    const shown = canonicalJson(value);
    const kind = Array.isArray(value) ? "a list" : typeof value === "object" ? "an object" : `a ${typeof value}`;
    return {
      detail: `field ${field} reports a failure (${kind} of ${shown.length} characters)`,
      quoted: shown.length > 300 ? `${shown.slice(0, 299)}…` : shown,
    };
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

/**
 * `plan: expected one of "free"|"pro"` — the first issue, its path, and how many more there are.
 * zod's messages speak of the schema (expected types and values); the keys of unrecognised
 * fields come from the payload, so they are counted, not named.
 */
export function describeIssues(issues: readonly IssueLike[], declaredKeys?: ReadonlySet<string>): string {
  const first = issues[0];
  if (!first) return "(root): rejected by the schema";
  const keys =
    (first as { code?: unknown; keys?: unknown }).code === "unrecognized_keys"
      ? (first as { keys?: unknown }).keys
      : undefined;
  // zod prefixes messages with a category ("Invalid option: ", "Too small: "); the class already says it.
  const message = Array.isArray(keys)
    ? `${keys.length} field${keys.length === 1 ? "" : "s"} the schema does not allow`
    : first.message.replace(/^[A-Z][a-z]*(?: [a-z]+)*: /, "");
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? "s" : ""})` : "";
  return `${fieldPath(first.path, declaredKeys)}: ${message}${more}`;
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

/** A checker's exception by its class only: its message may quote the payload. */
function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/** JSON.parse's message quotes the text; say where it failed instead. */
function jsonErrorText(error: unknown, length: number): string {
  const at = /position (\d+)/.exec(error instanceof Error ? error.message : "")?.[1];
  return `not valid JSON${at === undefined ? "" : ` at character ${at}`} (${length} characters)`;
}
