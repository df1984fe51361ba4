/**
 * Patterns for values that change on every call without carrying information (clock readings,
 * absolute or relative, and ids). They are
 * replaced by a placeholder before results are hashed or compared, so a poll whose answer
 * differs only in a timestamp or request id reads as "nothing new". Arguments are never
 * normalised: a call with a different timestamp argument is a different call.
 */
export const DEFAULT_VOLATILE_PATTERNS: readonly RegExp[] = Object.freeze([
  // One alternation, so a result is scanned once (the lookahead skips words that cannot start a
  // match without trying each branch): ISO 8601 date-times (2024-05-01T12:30:00.123Z),
  // UUIDs, and hex ids of 16+ digits mixing letters and numbers (request ids, trace ids, nonces).
  /\b(?=[0-9a-fA-F])(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|(?=[0-9a-fA-F]{16})(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{16,})\b/g,
  // a JSON field naming a request, trace or span id, whatever its value looks like
  /"(?:request|trace|span|correlation|x-request)[_-]?id"\s*:\s*"[^"]*"/gi,
  // a time given relative to now ("visited 8 seconds ago"): a clock reading in words
  /\b\d+(?:\.\d+)? (?:milliseconds?|ms|seconds?|secs?|minutes?|mins?|hours?|days?) ago\b/gi,
]);

export const VOLATILE_PLACEHOLDER = "<volatile>";

/**
 * Results longer than this are compared as they are: scanning megabytes for timestamps costs
 * more (about 9 ms per MB) than it saves, and a dump that large differs in more than its clock.
 */
export const MAX_NORMALISED_CHARS = 1_000_000;

/**
 * Compiles patterns into one replace pass: patterns with the same flags and no numbered
 * backreferences are joined into a single alternation, so a result is scanned once, not once
 * per pattern.
 */
export function volatileNormaliser(patterns: readonly RegExp[]): (text: string) => string {
  const passes: RegExp[] = [];
  const byFlags = new Map<string, string[]>();
  for (const pattern of patterns) {
    const flags = pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`;
    if (/\\[1-9]/.test(pattern.source)) {
      passes.push(new RegExp(pattern.source, flags));
      continue;
    }
    const group = byFlags.get(flags) ?? [];
    group.push(`(?:${pattern.source})`);
    byFlags.set(flags, group);
  }
  for (const [flags, sources] of byFlags) passes.unshift(new RegExp(sources.join("|"), flags));
  if (passes.length === 0) return (text) => text;
  return (text) => {
    if (text.length > MAX_NORMALISED_CHARS) return text;
    let out = text;
    for (const pass of passes) out = out.replace(pass, VOLATILE_PLACEHOLDER);
    return out;
  };
}
