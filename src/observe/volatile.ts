/**
 * Patterns for values that change on every call without carrying information (clock readings,
 * absolute or relative, and ids). They are
 * replaced by a placeholder before results are hashed or compared, so a poll whose answer
 * differs only in a timestamp or request id reads as "nothing new". Arguments are never
 * normalised: a call with a different timestamp argument is a different call.
 */
/**
 * A short line saying when the same thing was last seen, loaded or fetched, with a time or a
 * count in it. Pages that do change say so in their content, not in this line.
 */
const VISIT_NOTICE_LINE =
  /^[^\n\d]{0,60}\b(?:previously|already|last|recently) (?:visited|loaded|accessed|fetched|retrieved|refreshed|viewed|seen|opened|checked|requested)\b[^\n]{0,80}\d[^\n]{0,40}$\n?/gim;

/**
 * Cheap tests a text must pass before a line pattern is tried on it: trying a line pattern at
 * every line of a long listing costs more than one scan for its words.
 */
const LINE_HINTS = new WeakMap<RegExp, RegExp>([
  // case-sensitive and without the first letter: the fastest scan for the notice's two words
  [
    VISIT_NOTICE_LINE,
    /(?:reviously|lready|ast|ecently) (?:visited|loaded|accessed|fetched|retrieved|refreshed|viewed|seen|opened|checked|requested)/,
  ],
]);

export const DEFAULT_VOLATILE_PATTERNS: readonly RegExp[] = Object.freeze([
  // One alternation, so a result is scanned once (the lookahead skips words that cannot start a
  // match without trying each branch): ISO 8601 date-times (2024-05-01T12:30:00.123Z),
  // UUIDs, and hex ids of 16+ digits mixing letters and numbers (request ids, trace ids, nonces).
  /\b(?=[0-9a-fA-F])(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|(?=[0-9a-fA-F]{16})(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{16,})\b/g,
  // a JSON field naming a request, trace or span id, whatever its value looks like
  /"(?:request|trace|span|correlation|x-request)[_-]?id"\s*:\s*"[^"]*"/gi,
  // a time given relative to now ("visited 8 seconds ago"): a clock reading in words
  /\b\d+(?:\.\d+)? (?:milliseconds?|ms|seconds?|secs?|minutes?|mins?|hours?|days?) ago\b/gi,
  // a request or trace id given in plain text ("Request ID: 7f3a-..."), whatever its value looks like
  /\b(?:request|trace|span|correlation)[ _-]?id\b\s*[:=]\s*["']?[\w.:-]+/gi,
  // a counter of the asking itself ("attempt 3", "retry 2/5", "visited 4 times", "visit #7"):
  // it counts the calls, not anything the calls found
  /\b(?:attempts?|retry|retries|tries|try|visits?|reloads?|refresh(?:es)?)(?: count| number| no\.?)?\s*[:#]?\s*\d+(?:\s*(?:of|\/)\s*\d+)?\b|\b(?:visited|seen|viewed|loaded|refreshed|retried|tried|polled|checked) \d+ times?\b/gi,
  // A notice that the page or answer was seen or loaded before ("You previously visited this page 9
  // seconds ago.", "This page was last loaded at 12:03"): it appears on a repeat and not on the
  // first answer, so the whole line goes (a pattern with the `m` flag drops the lines it matches).
  VISIT_NOTICE_LINE,
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
 * per pattern. A pattern with the `m` (multiline) flag matches whole lines, which are dropped
 * rather than replaced: such a line (a visit notice) is on some answers and absent from others.
 */
export function volatileNormaliser(patterns: readonly RegExp[]): (text: string) => string {
  // Compiled once per list: a new stack (an agent built per request) would otherwise compile and
  // JIT the joined pattern again for its first result. The normaliser keeps no state of its own.
  let normalise = normalisers.get(patterns);
  if (!normalise) normalisers.set(patterns, (normalise = compile(patterns)));
  return normalise;
}

const normalisers = new WeakMap<readonly RegExp[], (text: string) => string>();

function compile(patterns: readonly RegExp[]): (text: string) => string {
  const passes: RegExp[] = [];
  const lineDrops: Array<{ drop: RegExp; hint?: RegExp }> = [];
  const byFlags = new Map<string, string[]>();
  for (const pattern of patterns) {
    const flags = pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`;
    if (pattern.multiline) {
      lineDrops.push({ drop: new RegExp(pattern.source, flags), hint: LINE_HINTS.get(pattern) });
      continue;
    }
    if (/\\[1-9]/.test(pattern.source)) {
      passes.push(new RegExp(pattern.source, flags));
      continue;
    }
    const group = byFlags.get(flags) ?? [];
    group.push(`(?:${pattern.source})`);
    byFlags.set(flags, group);
  }
  for (const [flags, sources] of byFlags) passes.unshift(new RegExp(sources.join("|"), flags));
  if (passes.length === 0 && lineDrops.length === 0) return (text) => text;
  return (text) => {
    if (text.length > MAX_NORMALISED_CHARS) return text;
    let out = text;
    for (const { drop, hint } of lineDrops) if (!hint || hint.test(out)) out = out.replace(drop, "");
    for (const pass of passes) out = out.replace(pass, VOLATILE_PLACEHOLDER);
    return out;
  };
}
