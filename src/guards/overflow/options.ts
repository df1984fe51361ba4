import type { StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod";
import { fn, guardOptions, wholeNumber } from "../../core/baseOptions.js";
import type { CountTokens } from "../../core/tokens.js";
import { offloadStore, storeTimeoutMs } from "../../offload/storeOptions.js";
import { MIN_LIMIT } from "../budget/plan.js";

/** Options, their defaults and their meaning in one place; bad options fail at construction. */
export const contextOverflowGuardOptions = guardOptions.extend({
  maxInputTokens: wholeNumber()
    .optional()
    .describe(
      "The model's input window in tokens. Default: the model's `profile.maxInputTokens`; without either, nothing is shrunk before sending (a provider's refusal is still recovered from).",
    ),
  reserveTokens: wholeNumber(0)
    .optional()
    .describe(
      "Tokens kept free for the answer. Default: the model's `maxTokens`, else 4,096; at most a quarter of the window.",
    ),
  shrinkTo: z
    .number()
    .gt(0)
    .lte(1)
    .default(0.9)
    .describe(
      "A request over the limit is shrunk to this share of it, leaving room for the estimate's error; when it cannot be, the smallest request is sent unless it is proven over the window.",
    ),
  largeResultTokens: wholeNumber()
    .default(1000)
    .describe("Tool results above this many tokens are the first to be offloaded (oldest first)."),
  previewTokens: wholeNumber(MIN_LIMIT.tokens)
    .default(500)
    .describe("Size of the preview (head and tail) an offloaded large result keeps in the request."),
  countTokens: fn<CountTokens>()
    .optional()
    .describe(
      "Counts the tokens of a text, e.g. your model's tokenizer. Default: an estimate within 0.98–1.36× of GPT-4o's and GPT-4's tokenizers (bench/README.md), calibrated both ways by the provider's reported input tokens.",
    ),
  store: offloadStore()
    .optional()
    .describe("Where offloaded content is kept. Default: a MemoryOffloadStore (this process only)."),
  retrievalTool: z
    .union(
      [
        z.boolean(),
        z.custom<StructuredToolInterface>(
          (v) => v !== null && typeof v === "object" && typeof (v as { name?: unknown }).name === "string",
        ),
      ],
      {
        error: "must be a boolean or a tool",
      },
    )
    .default(true)
    .describe(
      "`true`: register `read_stored_result` for the store. A tool: the one another middleware registers for the same store (a ToolResultBudgetMiddleware's `tools[0]`), offered again in a shrunk request that lacks it. `false`: neither.",
    ),
  storeTimeoutMs: storeTimeoutMs(),
  observeOnly: guardOptions.shape.observeOnly.describe(
    "Signal requests over the limit and provider refusals, but change nothing.",
  ),
  onSignal: guardOptions.shape.onSignal.describe("Receives every signal."),
});

export type ContextOverflowGuardOptions = z.input<typeof contextOverflowGuardOptions>;
