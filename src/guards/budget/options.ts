import { z } from "zod";
import { fn, guardOptions, toolNames, wholeNumber } from "../../core/baseOptions.js";
import type { CountTokens } from "../../core/tokens.js";
import { offloadStore, storeTimeoutMs } from "../../offload/storeOptions.js";
import { DEFAULT_STORE_TIMEOUT_MS } from "../../offload/timeouts.js";
import { MIN_LIMIT } from "./plan.js";

/** The defaults that depend on `unit`: the limit, as a table by unit. */
export const TOOL_RESULT_BUDGET_DEFAULTS = {
  limit: { chars: 20_000, tokens: 5_000 },
  unit: "chars",
  storeTimeoutMs: DEFAULT_STORE_TIMEOUT_MS,
} as const;

/** Options, their defaults and their meaning in one place; bad options fail at construction. */
export const toolResultBudgetOptions = guardOptions
  .extend({
    limit: wholeNumber()
      .optional()
      .describe(
        'Largest tool result the model gets, in `unit`s. Default 20,000 characters (5,000 with `unit: "tokens"`).',
      ),
    unit: z
      .enum(["chars", "tokens"])
      .default(TOOL_RESULT_BUDGET_DEFAULTS.unit)
      .describe('What `limit` counts: `"chars"` or `"tokens"`.'),
    countTokens: fn<CountTokens>()
      .optional()
      .describe(
        'Token counter for `unit: "tokens"`, e.g. your model\'s tokenizer. Default: about 4 characters per token.',
      ),
    toolLimits: z
      .record(z.string(), wholeNumber())
      .readonly()
      .default({})
      .describe("Limits of particular tools, in `unit`s, e.g. `{ search: 8000 }`."),
    excludeTools: toolNames().default([]).describe("Tools whose results are never budgeted."),
    turnLimit: wholeNumber()
      .optional()
      .describe(
        "Budget shared by all results of one model turn (its parallel calls): each call gets an equal share, never less than the minimum limit. Default: none, each call has its own limit.",
      ),
    store: offloadStore()
      .optional()
      .describe(
        "Where oversized results are kept so the model can read them back (a retrieval tool is then registered). Default: none; the result is cut and the notice says the rest was not kept.",
      ),
    storeTimeoutMs: storeTimeoutMs(),
    observeOnly: guardOptions.shape.observeOnly.describe(
      "Emit signals for oversized results but pass them through unchanged (and store nothing). Default false.",
    ),
    onSignal: guardOptions.shape.onSignal.describe(
      "Receives a signal for every result the budget changed (or, observe-only, would have changed).",
    ),
  })
  .superRefine((options, context) => {
    if (options.countTokens !== undefined && options.unit !== "tokens")
      context.addIssue({ code: "custom", path: ["countTokens"], message: 'needs unit: "tokens"' });
    const minimum = MIN_LIMIT[options.unit];
    const limits: [string[], number | undefined][] = [
      [["limit"], options.limit],
      ...Object.entries(options.toolLimits).map(([tool, limit]): [string[], number] => [["toolLimits", tool], limit]),
      [["turnLimit"], options.turnLimit],
    ];
    for (const [path, limit] of limits) {
      if (limit !== undefined && limit < minimum)
        context.addIssue({
          code: "custom",
          path,
          input: limit,
          message: `must be a whole number >= ${minimum} (${options.unit})`,
        });
    }
  });

export type ToolResultBudgetOptions = z.input<typeof toolResultBudgetOptions>;
