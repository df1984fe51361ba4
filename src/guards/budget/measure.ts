import { textOfBlock } from "../../core/messages.js";
import { canonicalJson } from "../../observe/canonical.js";
import { approximateTokens, CHARS_PER_TOKEN, countSafely, type CountTokens } from "../../core/tokens.js";
import { mediaBlockOf, type MediaBlockView } from "../binary/media.js";

/** The budget's `countTokens` option and its default, where the package entry exports them from. */
export { approximateTokens, type CountTokens };

export type BudgetUnit = "chars" | "tokens";

/** Sizes in the budget's unit. */
export interface Measure {
  readonly unit: BudgetUnit;
  text(text: string): number;
  /** A media payload of `chars` base64 (or URL) characters. Tokens are approximated, never counted. */
  media(chars: number): number;
  /**
   * Whether `text(t)` is never more than `t.length`: characters, and the default token estimate
   * (a token per four characters, rounded up). A text no longer than a limit then fits it unmeasured.
   */
  readonly atMostChars?: boolean;
}

export function createMeasure(unit: BudgetUnit, countTokens: CountTokens = approximateTokens): Measure {
  if (unit === "chars") return { unit, text: (text) => text.length, media: (chars) => chars, atMostChars: true };
  return {
    unit,
    text: (text) => countSafely(countTokens, text),
    media: (chars) => Math.ceil(chars / CHARS_PER_TOKEN),
    // A counter of the user's may say anything; the default never throws and rounds len / 4 up.
    atMostChars: countTokens === approximateTokens,
  };
}

export interface MediaPart {
  /** Position in the content array. */
  index: number;
  block: unknown;
  view: MediaBlockView;
}

/** A tool result split into the text the model reads and its media blocks. */
export interface SplitContent {
  /** A string result as is; for block content, text blocks (other non-media blocks as JSON) joined by newlines. */
  text: string;
  media: MediaPart[];
  /** Whether the content was an array of blocks. */
  blocks: boolean;
}

export function splitContent(content: unknown): SplitContent {
  if (typeof content === "string") return { text: content, media: [], blocks: false };
  if (!Array.isArray(content)) {
    return { text: content === null || content === undefined ? "" : canonicalJson(content), media: [], blocks: false };
  }
  const texts: string[] = [];
  const media: MediaPart[] = [];
  content.forEach((block: unknown, index) => {
    const view = mediaBlockOf(block);
    if (view && view.text === undefined) {
      media.push({ index, block, view });
      return;
    }
    texts.push(blockText(block, view));
  });
  return { text: texts.join("\n"), media, blocks: true };
}

function blockText(block: unknown, view: MediaBlockView | undefined): string {
  return textOfBlock(block) ?? view?.text ?? canonicalJson(block);
}
