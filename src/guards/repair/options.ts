import { z } from "zod";
import { fn, stoppingGuardOptions, wholeNumber } from "../../core/baseOptions.js";
import type { ToolCallView } from "../../core/messages.js";

/** Options, their defaults and their meaning in one place; bad options fail at construction. */
export const toolCallRepairOptions = stoppingGuardOptions.extend({
  stopAt: wholeNumber()
    .default(3)
    .describe(
      "Unusable calls (a tool that does not exist, or arguments that are not valid JSON and cannot be repaired safely) since the last user message at which `exitBehavior` applies.",
    ),
  formatToolError: fn<(error: unknown, call: ToolCallView) => string>()
    .optional()
    .describe(
      'The text the model reads when a tool throws. Default: `Tool "<name>" failed: <error class>: <message>`, without stack trace, at most 300 characters.',
    ),
  observeOnly: stoppingGuardOptions.shape.observeOnly.describe(
    "Emit signals only (with `detail.observeOnly`): no repair, no answer in place of a call, no stop, results untouched; tool exceptions become LangChain's usual error message. Default false.",
  ),
});

export type ToolCallRepairOptions = z.input<typeof toolCallRepairOptions>;
