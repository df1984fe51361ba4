import { messageKind } from "../../core/messages.js";
import { readContextRecord } from "./record.js";

/** Room kept for the answer when the model says nothing about its output limit. */
export const DEFAULT_ANSWER_RESERVE = 4096;

/** The input window a LangChain v1 chat model declares in its profile (`profile.maxInputTokens`). */
export function profileWindow(model: unknown): number | undefined {
  try {
    const profile = (model as { profile?: { maxInputTokens?: unknown } } | null | undefined)?.profile;
    const window = profile?.maxInputTokens;
    return typeof window === "number" && Number.isFinite(window) && window > 0 ? window : undefined;
  } catch {
    return undefined; // a profile getter that throws
  }
}

/**
 * Tokens kept free for the answer: the model's own `maxTokens` setting when it has one (OpenAI
 * counts it against the window), else 4,096; never more than a quarter of the window.
 */
export function answerReserve(model: unknown, window: number): number {
  const maxTokens = (model as { maxTokens?: unknown } | null | undefined)?.maxTokens;
  const wanted =
    typeof maxTokens === "number" && Number.isFinite(maxTokens) && maxTokens > 0 ? maxTokens : DEFAULT_ANSWER_RESERVE;
  return Math.min(wanted, Math.floor(window / 4));
}

/** How far the provider's count may exceed the estimate before the guard trusts the provider. */
export const MAX_CALIBRATION = 4;
/**
 * How far below the estimate the provider's count may fall. The estimate overcounts by at most
 * 1.37× on the bench's corpus (emoji under o200k_base; 1.06× on English prose), so a provider that
 * counts less than 0.7 of it is telling about something else (a usage for another request, a
 * proxy that cut the prompt): the factor stops there and the estimate keeps some of its margin.
 */
const MIN_CALIBRATION = 0.7;

/**
 * How many provider tokens one estimated token turned out to be, from the last model answer that
 * reports `usage_metadata.input_tokens`: its input against the estimate of the request that
 * produced it (recorded on the answer when the guard shrank that request; otherwise the fixed
 * part plus the messages before it). Both ways, within [0.7, 4]: a provider whose tokenizer is
 * leaner than the estimate gets the room back, one that counts more gets a stricter limit.
 */
export function calibration(
  messages: readonly unknown[],
  prefixTokens: (end: number) => number,
  fixedTokens: number,
): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (messageKind(message) !== "ai") continue;
    const input = inputTokensOf(message);
    if (input === undefined) return 1;
    const sent = readContextRecord(message)?.sentTokens ?? fixedTokens + prefixTokens(i);
    if (sent <= 0) return 1;
    return Math.min(MAX_CALIBRATION, Math.max(MIN_CALIBRATION, input / sent));
  }
  return 1;
}

function inputTokensOf(message: unknown): number | undefined {
  const usage = (message as { usage_metadata?: { input_tokens?: unknown } }).usage_metadata;
  const input = usage?.input_tokens;
  return typeof input === "number" && Number.isFinite(input) && input > 0 ? input : undefined;
}

/**
 * For `RequestMeter.summary`: the window a provider stated, recorded on the guard's answer to
 * the retry and on every answer after it (it overrides a profile that promised more); `null`
 * for a message without a record, `undefined` for a record without a stated window.
 */
export function providerWindowIn(message: unknown): number | undefined | null {
  if (messageKind(message) !== "ai") return null;
  const record = readContextRecord(message);
  return record ? record.providerWindow : null;
}
