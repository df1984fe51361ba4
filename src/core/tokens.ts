/** Counts the tokens of a text, e.g. with the tokenizer of the model the agent uses. */
export type CountTokens = (text: string) => number;

/** The rough rule LangChain's `countTokensApproximately` uses too: close enough for English text and code. */
export const CHARS_PER_TOKEN = 4;

/** About four characters per token, and free. */
export const approximateTokens: CountTokens = (text) => Math.ceil(text.length / CHARS_PER_TOKEN);

/** A user's counter that throws or answers nonsense is replaced by `fallback` for that text. */
export function countSafely(count: CountTokens, text: string, fallback: CountTokens = approximateTokens): number {
  try {
    const n = count(text);
    return Number.isFinite(n) && n >= 0 ? n : fallback(text);
  } catch {
    return fallback(text);
  }
}
