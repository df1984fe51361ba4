import { z } from "zod";
import { stoppingGuardOptions, toolNames, wholeNumber } from "../../core/baseOptions.js";

/** The loop guard's options, one field each; `loopGuardOptions` adds the rule between them. */
export const loopGuardFields = stoppingGuardOptions.extend({
  warnAt: wholeNumber()
    .default(3)
    .describe("Identical calls since the last new result (this one included) at which a `warn` signal is emitted."),
  stopAt: wholeNumber()
    .default(7)
    .describe(
      "Identical calls (this one included) at which `exitBehavior` applies. Real agents scroll or page up to 6 times in a row legitimately.",
    ),
  window: wholeNumber()
    .optional()
    .describe("Count identical calls among the last `window` calls instead of consecutive ones. Default: consecutive."),
  ignoreTools: toolNames().default(["think"]).describe("No-op tools that neither count nor break a streak."),
});

/** Options, their defaults and their meaning in one place; bad options fail at construction. */
export const loopGuardOptions = loopGuardFields.superRefine((options, context) => {
  if (options.warnAt > options.stopAt)
    context.addIssue({
      code: "custom",
      path: ["warnAt"],
      message: `(${options.warnAt}) must not exceed stopAt (${options.stopAt})`,
    });
});

export type LoopGuardOptions = z.input<typeof loopGuardOptions>;
