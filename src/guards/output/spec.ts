import type { z } from "zod";

/**
 * A business rule over a tool's output (a range, a format, a relation between fields). Returns
 * the reason the output breaks the rule, or nothing when it holds. It receives the value after
 * the schema parsed it (the parsed JSON without a schema, the text for text outputs).
 */
export type Invariant<T = any> = (value: T, call: { name: string; args: unknown }) => string | undefined | null | void;

/** What an invalid output becomes: an error the model cannot mistake for data, or a safe partial. */
export type InvalidOutputMode = "fail_closed" | "degrade";

/** What a valid output of one tool looks like. */
export interface ToolOutputSpec<T = any> {
  /** `"json"`: the output must be one strict JSON document (no repair) and never HTML. Default `"json"`. */
  contentType?: "json" | "text";
  /** Outputs longer than this many characters are invalid. Default: no limit. */
  maxChars?: number;
  /** A zod (v4) schema the parsed value must satisfy. */
  schema?: z.ZodType<T>;
  /** Business rules checked after the schema, in order; the first broken one decides. */
  invariants?: readonly Invariant<T>[];
  /**
   * JSON only: top-level fields whose presence with a value (not null, false, "" or empty) means
   * the payload reports a failure, whatever its status field says. Default `["error", "errors"]`.
   */
  errorFields?: readonly string[];
  /** Overrides the middleware's `onInvalid` for this tool. */
  onInvalid?: InvalidOutputMode;
  /** `fail_closed` only: also end the run, with stop reason `invalid_tool_output`. Default false. */
  stopRun?: boolean;
  /** JSON only: on valid output, replace the content by the parsed (schema-normalised) JSON. Default false. */
  normalize?: boolean;
}

/** A spec with every default applied, as the validator uses it. */
export interface ResolvedSpec {
  contentType: "json" | "text";
  maxChars: number;
  schema?: z.ZodType;
  invariants: readonly Invariant[];
  errorFields: readonly string[];
  onInvalid: InvalidOutputMode;
  stopRun: boolean;
  normalize: boolean;
}

export const DEFAULT_ERROR_FIELDS: readonly string[] = Object.freeze(["error", "errors"]);

/**
 * Machine-readable classes of invalid output, the second field of every reason
 * (`ToolOutputInvalid: <class>: <detail>`).
 */
export type OutputErrorClass =
  | "spec_missing"
  | "unexpected_content_blocks"
  | "oversized"
  | "empty"
  | "html_instead_of_json"
  | "json_truncated"
  | "json_invalid"
  | "error_in_payload"
  | "schema_invalid"
  | "invariant_failed"
  | "unusable_result";
