import { ContextOverflowError } from "@langchain/core/errors";

/**
 * How providers say a request is over the model's window. `@langchain/openai` and
 * `@langchain/anthropic` turn theirs into `ContextOverflowError` (code `CONTEXT_OVERFLOW`); other
 * provider packages pass the provider's own error through, so its wording is matched too.
 */
const OVERFLOW_WORDING: readonly RegExp[] = [
  /context_length_exceeded/i, // OpenAI, Azure, Groq, DeepSeek, OpenRouter and other OpenAI-compatible APIs
  /maximum context length/i, // OpenAI, vLLM, Mistral
  /exceeds the context window/i, // OpenAI Responses API
  /input tokens exceed the configured limit/i, // OpenAI
  /prompt is too long/i, // Anthropic, also through Bedrock and Vertex
  /input is too long for requested model/i, // AWS Bedrock
  /too many input tokens/i, // AWS Bedrock Converse
  /exceeds the maximum number of tokens allowed/i, // Google Gemini
  /too large for model with \d+ maximum context length/i, // Mistral
  /maximum prompt length is \d+/i, // xAI
  /reduce the length of the messages/i, // OpenAI, Groq
];

const MAX_DEPTH = 8;

/**
 * Whether `error` (or an error along its `cause` chain: LangChain wraps what a middleware throws
 * in a `MiddlewareError` per middleware it passes) says the request was too long for the model.
 */
export function isContextOverflowError(error: unknown): boolean {
  return overflowCause(error) !== undefined;
}

function overflowCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < MAX_DEPTH && current !== null && typeof current === "object"; depth++) {
    if (ContextOverflowError.isInstance(current)) return current;
    const e = current as { lc_error_code?: unknown; code?: unknown; message?: unknown; error?: unknown; cause?: unknown };
    if (e.lc_error_code === "CONTEXT_OVERFLOW" || e.code === "context_length_exceeded") return current;
    if (typeof e.message === "string" && OVERFLOW_WORDING.some((pattern) => pattern.test(e.message as string))) return current;
    current = e.cause ?? (typeof e.error === "object" ? e.error : undefined);
  }
  return undefined;
}

/** Numbers a provider gives with the refusal: the window, and what the request counted. */
export interface OverflowNumbers {
  limit?: number;
  requested?: number;
}

const NUMBER_PATTERNS: ReadonlyArray<{ pattern: RegExp; limit: number; requested: number }> = [
  // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
  { pattern: /(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)\s*maximum/i, requested: 1, limit: 2 },
  // OpenAI: "maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens"
  { pattern: /maximum context length is (\d[\d,]*) tokens?[^\d]+?(\d[\d,]*) tokens/i, limit: 1, requested: 2 },
  // Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)"
  { pattern: /token count \((\d[\d,]*)\) exceeds the maximum number of tokens allowed \((\d[\d,]*)\)/i, requested: 1, limit: 2 },
  // xAI: "maximum prompt length is 131072 but the request contains 140000 tokens"
  { pattern: /maximum prompt length is (\d[\d,]*)[^\d]+?(\d[\d,]*) tokens/i, limit: 1, requested: 2 },
];

/** The window and the request's size as the provider counted them, when its message says. */
export function overflowNumbers(error: unknown): OverflowNumbers {
  const cause = overflowCause(error);
  const texts: string[] = [];
  for (let e = cause ?? error, depth = 0; e !== null && typeof e === "object" && depth < MAX_DEPTH; depth++) {
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string") texts.push(message);
    e = (e as { cause?: unknown }).cause;
  }
  for (const text of texts) {
    for (const { pattern, limit, requested } of NUMBER_PATTERNS) {
      const match = pattern.exec(text);
      if (match) return { limit: toNumber(match[limit]), requested: toNumber(match[requested]) };
    }
  }
  return {};
}

function toNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text.replace(/,/g, ""));
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
