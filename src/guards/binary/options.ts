import { z } from "zod";
import { fn, guardOptions, toolNames } from "../../core/baseOptions.js";
import type { BinaryReadContext } from "./content.js";

/** A media type like "image/png", "image/*" or "*\/*". */
const mediaType = z
  .string()
  .regex(/^(?:\*\/\*|[\w.+-]+\/(?:\*|[\w.+-]+))$/, 'must hold media types like "image/png" or "image/*"');

/** Options, their defaults and their meaning in one place; bad options fail at construction. */
export const binaryReadGuardOptions = guardOptions.extend({
  tools: toolNames().optional().describe("Only these tools are checked. Default: every tool."),
  allowedMediaTypes: z
    .array(mediaType)
    .readonly()
    .default([])
    .describe(
      'Media blocks of these types reach the model: exact types, `"image/*"` or `"*/*"`. Default: none. `mediaTypesAcceptedBy(model)` lists what a model\'s profile accepts in tool results. Binary data inside text never passes.',
    ),
  directive: fn<(context: BinaryReadContext) => string>()
    .optional()
    .describe(
      "The text the model gets instead of the payload. Default: `binaryReadDirective` (`harness-kit/observe`).",
    ),
  observeOnly: guardOptions.shape.observeOnly.describe(
    "Emit signals for binary results but pass them through unchanged. Default false.",
  ),
  onSignal: guardOptions.shape.onSignal.describe(
    "Receives a signal for every result the guard replaced (or, observe-only, would have replaced).",
  ),
});

export type BinaryReadGuardOptions = z.input<typeof binaryReadGuardOptions>;
