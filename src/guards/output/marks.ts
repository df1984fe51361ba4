import type { InvalidOutputMode, OutputErrorClass } from "./spec.js";

/**
 * The mark OutputValidatorMiddleware leaves in `response_metadata.harness_kit` of the ToolMessages
 * it writes or judges, so that safe mode, the kill switch and a stop can be derived from the
 * history alone (in another process, after a restore, in replay).
 *
 * `action` is `"warn"` when the middleware only observed: the content is untouched, and the
 * loop guards (which read directive and stop marks as "answered by a guard") ignore it.
 */
export interface ValidatorMark {
  guard: string;
  action: "warn" | "directive" | "stop";
  reason: string;
  outcome: "invalid_output" | "blocked";
  errorClass?: OutputErrorClass;
  mode?: InvalidOutputMode;
}

const ACTIONS = new Set(["warn", "directive", "stop"]);
const OUTCOMES = new Set(["invalid_output", "blocked"]);

/** The mark `guard` left on a message, if any. Works on message instances and plain dicts. */
export function validatorMarkOf(message: unknown, guard: string): ValidatorMark | undefined {
  const meta = field(field(message, "response_metadata"), "harness_kit") as Partial<ValidatorMark> | undefined;
  if (!meta || meta.guard !== guard || !ACTIONS.has(meta.action as string) || !OUTCOMES.has(meta.outcome as string)) return undefined;
  return meta as ValidatorMark;
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}
