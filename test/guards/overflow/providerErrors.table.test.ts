import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  isContextOverflowError,
  overflowNumbers,
  type OverflowNumbers,
} from "../../../src/guards/overflow/providerErrors.js";

/**
 * Every provider LangChain.js has a chat model for: its over-window refusal as the provider words
 * it, and the numbers the guard reads from it. docs/provider-errors.md lists the same rows with
 * where each wording was seen; the last test keeps the two in step.
 */
interface Row {
  provider: string;
  /** The refusal as the provider words it (what the page shows). */
  sample: string;
  /** The error as it reaches the guard, when it is more than an Error with the sample as its message. */
  error?: unknown;
  numbers: OverflowNumbers;
}

/** The shape the openai SDK gives an HTTP error: "<status> <message>", with the error body under `error`. */
function apiError(status: number, body: Record<string, unknown>): Error {
  return Object.assign(new Error(`${status} ${String(body.message)}`), { status, error: body });
}

const ROWS: Row[] = [
  {
    provider: "OpenAI",
    sample:
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens. Please reduce the length of the messages.",
    numbers: { limit: 128000, requested: 204308 },
  },
  {
    provider: "OpenAI, with max_tokens counted",
    sample:
      "This model's maximum context length is 8192 tokens. However, you requested 8554 tokens (7554 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
    numbers: { limit: 8192, requested: 7554, reserve: 1000 },
  },
  {
    provider: "vLLM",
    sample:
      "This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.",
    numbers: { limit: 16384, requested: 112946, reserve: 10000 },
  },
  {
    provider: "vLLM, newer",
    sample:
      "'max_tokens' or 'max_completion_tokens' is too large: 2000. This model's maximum context length is 4096 tokens and your request has 2104 input tokens (2000 > 4096 - 2104).",
    numbers: { limit: 4096, requested: 2104, reserve: 2000 },
  },
  {
    provider: "DeepSeek",
    sample:
      "this model's maximum context length is 65536 tokens. however, you requested 69648 tokens (69648 in the messages, 0 in the completion). please reduce the length of the messages or completion.",
    numbers: { limit: 65536, requested: 69648, reserve: 0 },
  },
  {
    provider: "Groq",
    sample: "Please reduce the length of the messages or completion.",
    error: apiError(400, {
      message: "Please reduce the length of the messages or completion.",
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    }),
    numbers: {},
  },
  {
    provider: "Cerebras",
    sample: "Please reduce the length of the messages or completion. Current length is 42328 while limit is 40000",
    numbers: { limit: 40000, requested: 42328 },
  },
  {
    provider: "llama.cpp server",
    sample: "the request exceeds the available context size. try increasing the context size or enable context shift",
    error: apiError(400, {
      code: 400,
      message:
        "the request exceeds the available context size. try increasing the context size or enable context shift",
      type: "exceed_context_size_error",
      n_prompt_tokens: 14429,
      n_ctx: 8192,
    }),
    numbers: { limit: 8192, requested: 14429 },
  },
  { provider: "Ollama", sample: "the input length exceeds the context length", numbers: {} },
  {
    provider: "LM Studio",
    sample:
      "Trying to keep the first 10136 tokens when context the overflows. However, the model is loaded with context length of only 7866 tokens, which is not enough.",
    numbers: { limit: 7866, requested: 10136 },
  },
  {
    provider: "Hugging Face TGI",
    sample:
      "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8192. Given: 6204 `inputs` tokens and 2047 `max_new_tokens`",
    numbers: { limit: 8192, requested: 6204, reserve: 2047 },
  },
  {
    provider: "Anthropic",
    sample: "prompt is too long: 219898 tokens > 200000 maximum",
    numbers: { limit: 200000, requested: 219898 },
  },
  {
    provider: "Anthropic, input + max_tokens",
    sample:
      "input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again",
    numbers: { limit: 200000, requested: 178959, reserve: 64000 },
  },
  { provider: "AWS Bedrock", sample: "Input is too long for requested model.", numbers: {} },
  {
    provider: "AWS Bedrock, Claude",
    sample: "The model returned the following errors: prompt is too long: 200049 tokens > 200000 maximum",
    numbers: { limit: 200000, requested: 200049 },
  },
  {
    provider: "Google Gemini, Vertex AI",
    sample: "The input token count (1054016) exceeds the maximum number of tokens allowed (1048576).",
    numbers: { limit: 1048576, requested: 1054016 },
  },
  {
    provider: "Gemini, without the count",
    sample: "The input token count exceeds the maximum number of tokens allowed (1048576).",
    numbers: { limit: 1048576 },
  },
  {
    provider: "xAI",
    sample: "This model's maximum prompt length is 131072 but the request contains 136973 tokens.",
    numbers: { limit: 131072, requested: 136973 },
  },
  {
    provider: "Cohere",
    sample:
      "too many tokens: total number of tokens (prompt and prediction) cannot exceed 2048 - received 6354. Try using a shorter prompt or a smaller max_tokens value.",
    numbers: { limit: 2048, requested: 6354 },
  },
  {
    provider: "Mistral",
    sample: "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length",
    numbers: { limit: 32768, requested: 40000 },
  },
];

describe("every provider's over-window refusal", () => {
  it.each(ROWS)("$provider: recognised, with its numbers", ({ sample, error, numbers }) => {
    const raised = error ?? new Error(`400 ${sample}`);
    expect(isContextOverflowError(raised)).toBe(true);
    expect(overflowNumbers(raised)).toEqual(numbers);
    // As LangChain passes it on: wrapped by the middlewares it crossed.
    const wrapped = new Error("Error in middleware X", { cause: raised });
    expect(isContextOverflowError(wrapped)).toBe(true);
    expect(overflowNumbers(wrapped)).toEqual(numbers);
  });

  it("leaves the providers' other 400s alone", () => {
    for (const message of [
      "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-opus-4-20250514",
      "`max_tokens` must be less than or equal to `16384`",
      "The maximum tokens you requested exceeds the model limit of 2048. Try again with a maximum tokens value that is lower than 2048.",
      "Request too large for model `llama-3.3-70b-versatile` on tokens per minute (TPM): Limit 6000, Requested 14810, please reduce your message size and try again.",
      "messages.1.content.0.tool_result: tool_use ids were found without tool_result blocks immediately after",
    ]) {
      expect(isContextOverflowError(new Error(`400 ${message}`)), message).toBe(false);
    }
  });

  it("the page lists every row with its sample", () => {
    const page = readFileSync(new URL("../../../docs/provider-errors.md", import.meta.url), "utf8");
    for (const { sample } of ROWS) expect(page, sample).toContain(sample);
  });
});
