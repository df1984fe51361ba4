import { contentText } from "./content.js";
import type { Hasher } from "./hash.js";
import { DEFAULT_VOLATILE_PATTERNS, volatileNormaliser } from "./volatile.js";

const normaliseDefault = volatileNormaliser(DEFAULT_VOLATILE_PATTERNS);

/**
 * The fingerprint the observation store gives a tool result: xxhash64 of the result's text after
 * volatile-field normalisation. A middleware that replaces a result in the history (the budget's
 * preview) records this fingerprint of the original under
 * `response_metadata.harness_kit.original`, so the loop guards keep comparing real results.
 */
export function resultFingerprint(
  content: unknown,
  hash: Hasher,
  normalise: (text: string) => string = normaliseDefault,
): string {
  return hash(normalise(contentText(content)));
}
