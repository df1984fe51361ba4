import { readMark } from "../../core/marks.js";
import type { InvalidOutputMode, OutputErrorClass } from "./spec.js";

/**
 * The mark (core/marks.ts) OutputValidatorMiddleware leaves on the ToolMessages
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
  outcome: "invalid_output" | "blocked" | "instructions_flagged";
  errorClass?: OutputErrorClass;
  mode?: InvalidOutputMode;
}

const OUTCOMES = new Set(["invalid_output", "blocked", "instructions_flagged"]);

/** The mark `guard` left on a message, if any. Works on message instances and plain dicts. */
export function validatorMarkOf(message: unknown, guard: string): ValidatorMark | undefined {
  const mark = readMark(message);
  if (!mark || mark.guard !== guard || !OUTCOMES.has(mark.outcome as string)) return undefined;
  return mark as unknown as ValidatorMark;
}
