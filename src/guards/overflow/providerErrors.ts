import { ContextOverflowError } from "@langchain/core/errors";

/**
 * How providers say a request is over the model's window. `@langchain/openai` and
 * `@langchain/anthropic` turn some of theirs into `ContextOverflowError` (code `CONTEXT_OVERFLOW`);
 * other refusals, and other provider packages, pass the provider's own error through, so its
 * wording is matched too. Where each wording comes from: docs/provider-errors.md.
 */
const OVERFLOW_WORDING: readonly RegExp[] = [
  /context_length_exceeded/i, // OpenAI, Azure, Groq, DeepSeek, OpenRouter and other OpenAI-compatible APIs
  /maximum context length/i, // OpenAI, vLLM, DeepSeek, Mistral
  /exceeds the context window/i, // OpenAI Responses API
  /input tokens exceed the configured limit/i, // OpenAI
  /reduce the length of the messages/i, // OpenAI, Groq, Cerebras
  /prompt is too long/i, // Anthropic, also through Bedrock and Vertex
  /input length and `?max_tokens`? exceed context limit/i, // Anthropic: input fits, input + max_tokens does not
  /input is too long for requested model/i, // AWS Bedrock
  /too many input tokens/i, // AWS Bedrock Converse
  /input token count(?: \(\d[\d,]*\))? exceeds the maximum number of tokens allowed/i, // Google Gemini, Vertex AI
  /exceeds the maximum number of tokens allowed/i, // Google Gemini
  /too large for model with \d+ maximum context length/i, // Mistral
  /maximum prompt length is \d+/i, // xAI
  /too many tokens: (?:total number of tokens|size limit exceeded)/i, // Cohere
  /exceeds the available context size/i, // llama.cpp server (type exceed_context_size_error)
  /exceed_context_size_error/i, // llama.cpp server
  /input length exceeds the context length/i, // Ollama
  /`inputs` tokens \+ `max_new_tokens` must be <=/i, // Hugging Face TGI
  /model is loaded with context length of only \d+ tokens/i, // LM Studio
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
    const e = current as {
      lc_error_code?: unknown;
      code?: unknown;
      type?: unknown;
      message?: unknown;
      error?: unknown;
      cause?: unknown;
    };
    if (
      e.lc_error_code === "CONTEXT_OVERFLOW" ||
      e.code === "context_length_exceeded" ||
      e.type === "exceed_context_size_error"
    )
      return current;
    if (typeof e.message === "string" && OVERFLOW_WORDING.some((pattern) => pattern.test(e.message as string)))
      return current;
    current = e.cause ?? (typeof e.error === "object" ? e.error : undefined);
  }
  return undefined;
}

/**
 * Numbers a provider gives with the refusal: its window, what it counted of the request's input,
 * and, when it counts the answer's room against the window too, that room (`max_tokens`).
 */
export interface OverflowNumbers {
  limit?: number;
  requested?: number;
  reserve?: number;
}

/** One wording with numbers: which group of the match holds which number. */
interface NumberPattern {
  pattern: RegExp;
  limit: number;
  requested?: number;
  reserve?: number;
}

const N = "(\\d[\\d,]*)";

/** Most specific first: a wording that also states the answer's room before one that does not. */
const NUMBER_PATTERNS: readonly NumberPattern[] = [
  // Anthropic: "input length and `max_tokens` exceed context limit: 13176 + 4096 > 16384, decrease input length or `max_tokens` and try again"
  {
    pattern: new RegExp(`exceed context limit:\\s*${N}\\s*\\+\\s*${N}\\s*>\\s*${N}`, "i"),
    requested: 1,
    reserve: 2,
    limit: 3,
  },
  // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
  { pattern: new RegExp(`${N}\\s*tokens?\\s*>\\s*${N}\\s*maximum`, "i"), requested: 1, limit: 2 },
  // vLLM (newer): "'max_tokens' or 'max_completion_tokens' is too large: 2000. This model's maximum context length is 4096 tokens and your request has 2104 input tokens (2000 > 4096 - 2104)"
  {
    pattern: new RegExp(
      `is too large: ${N}\\. This model's maximum context length is ${N} tokens and your request has ${N} input tokens`,
      "i",
    ),
    reserve: 1,
    limit: 2,
    requested: 3,
  },
  // vLLM, DeepSeek, older OpenAI: "maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the completion)"
  {
    pattern: new RegExp(
      `maximum context length is ${N} tokens?[^\\d]+?${N} tokens? \\(${N} in the messages, ${N} in the completion\\)`,
      "i",
    ),
    limit: 1,
    requested: 3,
    reserve: 4,
  },
  // older OpenAI completions: "maximum context length is 4097 tokens, however you requested 6539 tokens (6283 in your prompt; 256 for the completion)"
  {
    pattern: new RegExp(
      `maximum context length is ${N} tokens?[^\\d]+?${N} tokens? \\(${N} in your prompt; ${N} for the completion\\)`,
      "i",
    ),
    limit: 1,
    requested: 3,
    reserve: 4,
  },
  // OpenAI: "maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens"
  { pattern: new RegExp(`maximum context length is ${N} tokens?[^\\d]+?${N} tokens`, "i"), limit: 1, requested: 2 },
  // Gemini, Vertex AI: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)" (the count is sometimes left out)
  {
    pattern: new RegExp(`token count(?: \\(${N}\\))? exceeds the maximum number of tokens allowed \\(${N}\\)`, "i"),
    requested: 1,
    limit: 2,
  },
  // xAI: "maximum prompt length is 131072 but the request contains 140000 tokens"
  { pattern: new RegExp(`maximum prompt length is ${N}[^\\d]+?${N} tokens`, "i"), limit: 1, requested: 2 },
  // Mistral: "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length"
  {
    pattern: new RegExp(
      `contains ${N} tokens[^\\d]*(?:\\d[\\d,]*[^\\d]+)?too large for model with ${N} maximum context length`,
      "i",
    ),
    requested: 1,
    limit: 2,
  },
  // Cerebras: "Please reduce the length of the messages or completion. Current length is 42328 while limit is 40000"
  { pattern: new RegExp(`current length is ${N} while limit is ${N}`, "i"), requested: 1, limit: 2 },
  // Cohere: "too many tokens: total number of tokens (prompt and prediction) cannot exceed 2048 - received 6354"
  { pattern: new RegExp(`cannot exceed ${N} - received ${N}`, "i"), limit: 1, requested: 2 },
  // Hugging Face TGI: "`inputs` tokens + `max_new_tokens` must be <= 8192. Given: 6204 `inputs` tokens and 2047 `max_new_tokens`"
  {
    pattern: new RegExp(`must be <= ${N}\\. Given: ${N} \`inputs\` tokens and ${N} \`max_new_tokens\``, "i"),
    limit: 1,
    requested: 2,
    reserve: 3,
  },
  // LM Studio: "Trying to keep the first 10136 tokens when context the overflows. However, the model is loaded with context length of only 7866 tokens"
  {
    pattern: new RegExp(`keep the first ${N} tokens[^\\d]+?context length of only ${N} tokens`, "i"),
    requested: 1,
    limit: 2,
  },
];

/** The window and the request's size as the provider counted them, when its message (or its error body) says. */
export function overflowNumbers(error: unknown): OverflowNumbers {
  const cause = overflowCause(error);
  const texts: string[] = [];
  for (let e = cause ?? error, depth = 0; e !== null && typeof e === "object" && depth < MAX_DEPTH; depth++) {
    const { message, n_ctx, n_prompt_tokens } = e as { message?: unknown; n_ctx?: unknown; n_prompt_tokens?: unknown };
    // llama.cpp states its numbers as fields of the error body, not in the message.
    const fromFields = { limit: positive(n_ctx), requested: positive(n_prompt_tokens) };
    if (fromFields.limit !== undefined) return withoutUndefined(fromFields);
    if (typeof message === "string") texts.push(message);
    const next = e as { cause?: unknown; error?: unknown };
    e = next.cause ?? (typeof next.error === "object" ? next.error : undefined);
  }
  for (const text of texts) {
    for (const { pattern, limit, requested, reserve } of NUMBER_PATTERNS) {
      const match = pattern.exec(text);
      if (!match) continue;
      return withoutUndefined({
        limit: toNumber(match[limit]),
        requested: requested === undefined ? undefined : toNumber(match[requested]),
        reserve: reserve === undefined ? undefined : toNumber(match[reserve], true),
      });
    }
  }
  return {};
}

function withoutUndefined(numbers: OverflowNumbers): OverflowNumbers {
  const out: OverflowNumbers = {};
  if (numbers.limit !== undefined) out.limit = numbers.limit;
  if (numbers.requested !== undefined) out.requested = numbers.requested;
  if (numbers.reserve !== undefined) out.reserve = numbers.reserve;
  return out;
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
}

function toNumber(text: string | undefined, zeroAllowed = false): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text.replace(/,/g, ""));
  return Number.isFinite(n) && (n > 0 || (zeroAllowed && n === 0)) ? n : undefined;
}
