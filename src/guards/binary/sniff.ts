import { reviewText } from "./review.js";
import type { RegionEvidence } from "./region.js";

/** Why a whole text was judged to be binary data. */
export interface TextEvidence {
  kind: RegionEvidence;
  label: string;
  mediaType: string | undefined;
}

/**
 * Evidence that `text` as a whole is binary data, or `undefined` (text, text with binary parts,
 * or text in a wrong encoding: see `reviewText` for those). Reads the whole text, in time linear
 * in its length. Never throws.
 */
export function sniffText(text: string): TextEvidence | undefined {
  try {
    const review = reviewText(text);
    return review?.kind === "binary"
      ? { kind: review.region.evidence, label: review.region.label, mediaType: review.region.mediaType }
      : undefined;
  } catch {
    return undefined;
  }
}
