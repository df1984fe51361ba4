import { z } from "zod";
import { fn, guardOptions, toolNames, wholeNumber } from "../../core/baseOptions.js";
import type { RunawayReport } from "./report.js";

/** A runaway factor: a number > 0; `Infinity` turns the tier off. */
const factor = () =>
  z.union([z.number().positive(), z.literal(Number.POSITIVE_INFINITY)], {
    error: "must be a number > 0 (Infinity turns the tier off)",
  });

/**
 * The runaway guard's options, one field each; `runawayGuardOptions` adds the order of the tiers.
 * The factors are calibrated on the recorded runs of docs/evaluation.md with simulated provider
 * usage: no successful run there reaches 6×, and 3 of 455 reach 5×; each model call that learns
 * nothing adds about 1×.
 */
export const runawayGuardFields = guardOptions.extend({
  warnAt: factor().default(4).describe("Runaway factor at which a `warn` signal is emitted."),
  blockAt: factor()
    .default(5)
    .describe(
      "Runaway factor from which calls repeating an earlier call of this run (same tool, same arguments) are refused with a directive.",
    ),
  stopAt: factor()
    .default(8)
    .describe("Runaway factor at which the run stops: every pending call answered, a final message says why."),
  minInputTokens: wholeNumber()
    .default(1_000)
    .describe(
      "The run's input, and the context the factor is measured against, count as at least this many tokens, so that a one-line question (whose estimate lacks the system prompt and tool schemas) does not make a tiny context look like a runaway.",
    ),
  maxRunTokens: wholeNumber()
    .optional()
    .describe("Stop a run once its model calls consumed this many tokens. Default: no cap."),
  maxThreadTokens: wholeNumber()
    .optional()
    .describe(
      "Stop once the thread's model calls consumed this many tokens, and refuse to start new runs. Default: no cap.",
    ),
  delegationTools: toolNames()
    .default(["task"])
    .describe("Tools that hand work to a subagent, for the delegation share in the run report (deepagents' `task`)."),
  onReport: fn<(report: RunawayReport) => void>()
    .optional()
    .describe("Receives one report per run, when the run ends (also sent as the custom event `harness_kit_report`)."),
});

/** Options, their defaults and their meaning in one place; bad options fail at construction. */
export const runawayGuardOptions = runawayGuardFields.superRefine((options, context) => {
  if (options.warnAt > options.blockAt)
    context.addIssue({
      code: "custom",
      path: ["warnAt"],
      message: `(${options.warnAt}) must not exceed blockAt (${options.blockAt})`,
    });
  else if (options.blockAt > options.stopAt)
    context.addIssue({
      code: "custom",
      path: ["blockAt"],
      message: `(${options.blockAt}) must not exceed stopAt (${options.stopAt})`,
    });
});

export type RunawayGuardOptions = z.input<typeof runawayGuardOptions>;
