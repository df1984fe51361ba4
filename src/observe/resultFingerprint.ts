import { contentText } from "./content.js";
import type { Hasher } from "./hash.js";
import { DEFAULT_VOLATILE_PATTERNS, normaliseVolatile } from "./volatile.js";

/**
 * The fingerprint the observation store gives a tool result: xxhash64 of the result's text after
 * volatile-field normalisation. A middleware that replaces a result in the history (the budget's
 * preview) records this fingerprint of the original, so the loop guards keep comparing real results.
 */
export function resultFingerprint(
  content: unknown,
  hash: Hasher,
  volatilePatterns: readonly RegExp[] = DEFAULT_VOLATILE_PATTERNS,
): string {
  return hash(normaliseVolatile(contentText(content), volatilePatterns));
}
