import { Validator } from "@langchain/core/utils/json_schema";
import { interopSafeParseAsync, isInteropZodSchema } from "@langchain/core/utils/types";
import { moreIssuesText, schemaIssueText, unexplainedMismatchText } from "./texts.js";

export type SchemaCheck = { ok: true } | { ok: false; issues: string[] };

const OK: SchemaCheck = Object.freeze({ ok: true });
const MAX_ISSUES = 5;
/** cfworker keywords that only say "a child failed"; the child's own error says what is wrong. */
const SUMMARY_KEYWORDS = new Set([
  "properties",
  "items",
  "prefixItems",
  "additionalItems",
  "allOf",
  "$ref",
  "false",
  "dependentSchemas",
]);
const validators = new WeakMap<object, Validator>();

/**
 * Checks tool arguments against a tool's schema the way LangChain's tools do (Zod through the
 * interop layer, JSON Schema through cfworker), but keeps only what the model needs to fix them:
 * one line per problem, naming the argument, and no stack trace.
 */
export async function checkArguments(schema: unknown, args: unknown): Promise<SchemaCheck> {
  if (schema === undefined || schema === null) return OK;
  if (isInteropZodSchema(schema)) {
    const result = await interopSafeParseAsync(schema, args);
    if (result.success) return OK;
    const issues = (result.error?.issues ?? []) as Array<{ path?: PropertyKey[]; message?: string }>;
    return failed(issues.map((issue) => schemaIssueText(issue.path ?? [], issue.message)));
  }
  if (typeof schema !== "object") return OK;
  const result = validatorFor(schema).validate(args);
  if (result.valid) return OK;
  const lines = result.errors
    .filter((error) => !SUMMARY_KEYWORDS.has(error.keyword))
    .map((error) =>
      schemaIssueText(error.instanceLocation.replace(/^#\/?/, "").split("/").filter(Boolean), error.error),
    );
  return failed(lines.length > 0 ? lines : [unexplainedMismatchText()]);
}

function validatorFor(schema: object): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator(schema as ConstructorParameters<typeof Validator>[0], "7", false);
    validators.set(schema, validator);
  }
  return validator;
}

function failed(lines: string[]): SchemaCheck {
  const unique = [...new Set(lines)];
  const shown = unique.slice(0, MAX_ISSUES);
  if (unique.length > MAX_ISSUES) shown.push(moreIssuesText(unique.length - MAX_ISSUES));
  return { ok: false, issues: shown };
}
