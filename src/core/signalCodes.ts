/**
 * Every `Signal.code`: a stable, machine-readable name for what a guard saw, to group and alert
 * on in dashboards. The signal's `action` says what the guard did about it (warn, directive, stop);
 * `reason` is the human sentence. A code is never renamed once released; a new situation gets a
 * new code here and a row in docs/signals.md's table of signal codes (a test compares the two).
 */
export const SIGNAL_CODES = [
  // any guard
  "guard_failed",
  // LoopGuardMiddleware
  "identical_calls",
  // ProgressAwareLoopGuardMiddleware
  "no_progress",
  "repeated_error",
  "duplicate_in_batch",
  // RunawayGuardMiddleware
  "runaway_factor",
  "run_token_cap",
  "thread_token_cap",
  // ToolResultBudgetMiddleware
  "result_offloaded",
  "result_truncated",
  "store_failed",
  "media_removed",
  "over_budget",
  // OutputValidatorMiddleware
  "invalid_output",
  "instruction_like_text",
  "kill_switch",
  "instructions_in_output",
  "safe_mode",
  // BinaryReadGuardMiddleware (binary_result also ToolCallRepairMiddleware)
  "binary_result",
  "binary_parts_removed",
  "misencoded_text",
  // PathGuardMiddleware
  "outside_roots",
  "through_symlink",
  "parent_after_symlink",
  "outside_on_the_way",
  "other_reading",
  "unresolvable",
  "not_a_string",
  "nul_byte",
  "foreign_windows_path",
  "device_path",
  "bad_file_url",
  "overlong_utf8",
  "too_many_readings",
  "pattern_too_complex",
  "too_deep",
  "path_rewritten",
  // ToolCallRepairMiddleware
  "repaired_arguments",
  "unusable_arguments",
  "unknown_tool",
  "schema_mismatch",
  "unserialisable_result",
  "tool_error",
  "empty_result",
  // ContextOverflowGuardMiddleware
  "request_shrunk",
  "over_window",
  "provider_refused",
  "context_overflow",
  // PolicyGuardMiddleware
  "policy_denied",
  "policy_ask",
  "policy_approved",
  "policy_edited",
  "policy_rejected",
  "policy_review_unreadable",
  "policy_failed",
] as const;

export type SignalCode = (typeof SIGNAL_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set(SIGNAL_CODES);

export function isSignalCode(value: unknown): value is SignalCode {
  return typeof value === "string" && KNOWN.has(value);
}
