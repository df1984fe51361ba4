import { canonicalJson } from "../../observe/canonical.js";
import { mediaBlockOf, type MediaBlockView } from "../binary/media.js";

export type BudgetUnit = "chars" | "tokens";

/** Counts the tokens of a text, e.g. with the tokenizer of the model the agent uses. */
export type CountTokens = (text: string) => number;

/** About four characters per token: close enough for English text and code, and free. */
export const approximateTokens: CountTokens = (text) => Math.ceil(text.length / 4);

/** Sizes in the budget's unit. */
export interface Measure {
  readonly unit: BudgetUnit;
  text(text: string): number;
  /** A media payload of `chars` base64 (or URL) characters. Tokens are approximated, never counted. */
  media(chars: number): number;
}

export function createMeasure(unit: BudgetUnit, countTokens: CountTokens = approximateTokens): Measure {
  if (unit === "chars") return { unit, text: (text) => text.length, media: (chars) => chars };
  return {
    unit,
    text: (text) => safeCount(countTokens, text),
    media: (chars) => Math.ceil(chars / 4),
  };
}

/** A user's counter that throws or answers nonsense falls back to the approximation. */
function safeCount(countTokens: CountTokens, text: string): number {
  try {
    const count = countTokens(text);
    return Number.isFinite(count) && count >= 0 ? count : approximateTokens(text);
  } catch {
    return approximateTokens(text);
  }
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
  if (typeof block === "string") return block;
  if (view?.text !== undefined) return view.text;
  if (block !== null && typeof block === "object") {
    const b = block as Record<string, unknown>;
    if (b.type === "text" && typeof b.text === "string") return b.text;
  }
  return canonicalJson(block);
}
