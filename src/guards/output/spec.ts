import { z } from "zod";
import { fn, wholeNumber } from "../../core/baseOptions.js";

/**
 * A business rule over a tool's output (a range, a format, a relation between fields). Returns
 * the reason the output breaks the rule, or nothing when it holds. It receives the value after
 * the schema parsed it (the parsed JSON without a schema, the text for text outputs).
 */
export type Invariant<T = any> = (value: T, call: { name: string; args: unknown }) => string | undefined | null | void;

/** What an invalid output becomes: an error the model cannot mistake for data, or a safe partial. */
export type InvalidOutputMode = "fail_closed" | "degrade";

/** Top-level fields whose value reports a failure, by default. */
export const DEFAULT_ERROR_FIELDS: readonly string[] = Object.freeze(["error", "errors"]);

/** What a valid output of one tool looks like: the spec's options, their defaults and their meaning. */
export const toolOutputSpec = z
  .object({
    contentType: z
      .enum(["json", "text"])
      .default("json")
      .describe(
        '`"json"`: the output must be one strict JSON document (no repair) and never HTML. `"text"` skips JSON parsing and the HTML checks.',
      ),
    maxChars: wholeNumber()
      .optional()
      .describe("Outputs longer than this many characters are invalid (`oversized`). Default: no limit."),
    schema: z
      .custom<z.ZodType>(
        (value) =>
          value !== null &&
          typeof value === "object" &&
          typeof (value as { safeParse?: unknown }).safeParse === "function",
        "must be a zod schema",
      )
      .optional()
      .describe("A zod (v4) schema the parsed value must satisfy."),
    invariants: z
      .array(fn<Invariant>())
      .readonly()
      .default([])
      .describe(
        "Business rules, each `(value, call) => reason | undefined`, checked after the schema, in order; the first broken one decides.",
      ),
    errorFields: z
      .array(z.string())
      .readonly()
      .default(DEFAULT_ERROR_FIELDS)
      .describe(
        'JSON only: top-level fields whose presence with a value (not null, false, "" or empty) means the payload reports a failure, whatever its status field says.',
      ),
    onInvalid: z
      .enum(["fail_closed", "degrade"])
      .optional()
      .describe("What an invalid output of this tool becomes. Default: the middleware's `onInvalid`."),
    stopRun: z
      .boolean()
      .default(false)
      .describe("`fail_closed` only: also end the run, with stop reason `invalid_tool_output`."),
    normalize: z
      .boolean()
      .default(false)
      .describe("JSON only: on valid output, replace the content by the parsed (schema-normalised) JSON."),
  })
  .superRefine((spec, context) => {
    if (spec.normalize && spec.contentType !== "json")
      context.addIssue({ code: "custom", path: ["normalize"], message: 'needs contentType "json"' });
  });

/** A tool's output spec as written, typed by the value its schema parses. */
export type ToolOutputSpec<T = any> = Omit<z.input<typeof toolOutputSpec>, "schema" | "invariants"> & {
  schema?: z.ZodType<T>;
  invariants?: readonly Invariant<T>[];
};

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
