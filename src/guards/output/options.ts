import { z } from "zod";
import { guardOptions, toolNames, wholeNumber } from "../../core/baseOptions.js";
import type { LastKnownGoodCache } from "./cache.js";
import { toolOutputSpec, type ToolOutputSpec } from "./spec.js";

const killSwitch = z.object({
  window: wholeNumber().default(10),
  threshold: z.number().gt(0, "must be in (0, 1]").lte(1, "must be in (0, 1]").default(0.5),
});

/** Options, their defaults and their meaning in one place; bad options fail at construction. */
export const outputValidatorOptions = guardOptions
  .extend({
    tools: z.record(z.string(), toolOutputSpec).default({}).describe("What a valid output looks like, by tool name."),
    unspecifiedTools: z
      .enum(["pass", "require-spec"])
      .default("pass")
      .describe('Tools without a spec: `"pass"` their output through, or treat it as invalid (`spec_missing`).'),
    onInvalid: z
      .enum(["fail_closed", "degrade"])
      .default("fail_closed")
      .describe("What an invalid output becomes, for specs that do not say."),
    writeTools: toolNames()
      .default([])
      .describe("Tools that change things: refused in safe mode and once the kill switch trips."),
    lastKnownGood: z
      .custom<LastKnownGoodCache>(
        (value) => value !== null && typeof value === "object",
        "must be a LastKnownGoodCache (get and set)",
      )
      .optional()
      .describe(
        'Where `degrade` finds the last valid output of the same call. Default none: the partial says "unavailable".',
      ),
    killSwitch: z
      .union([z.literal(false), killSwitch], { error: "must be false or { window, threshold }" })
      .default({ window: 10, threshold: 0.5 })
      .describe(
        "Blocks every write tool for the rest of the run once at least `threshold` × `window` of the last `window` checked outputs were invalid. `false` turns it off.",
      ),
    envelope: z
      .union([z.boolean(), toolNames()], { error: "must be a boolean or a list of tool names" })
      .default(false)
      .describe(
        "Wrap tool output in a delimited untrusted-data envelope and signal instruction-like text: `true` for every tool, or the tools to wrap.",
      ),
    instructionsPauseWrites: z
      .boolean()
      .default(false)
      .describe(
        "Once an enveloped output was flagged for instruction-like text, refuse `writeTools` for the rest of the run (a tripwire: it trusts the flags, which miss paraphrases).",
      ),
    observeOnly: guardOptions.shape.observeOnly.describe(
      "Validate and emit signals only; never change a result or refuse a call. Default false.",
    ),
    onSignal: guardOptions.shape.onSignal.describe(
      "Receives every invalid output, refused call, kill-switch trip and instruction-like text.",
    ),
  })
  .superRefine((options, context) => {
    for (const [tool, spec] of Object.entries(options.tools)) {
      const onInvalid = spec.onInvalid ?? options.onInvalid;
      if (spec.stopRun && onInvalid !== "fail_closed")
        context.addIssue({
          code: "custom",
          path: ["tools", tool, "stopRun"],
          message: `needs onInvalid "fail_closed", got "${onInvalid}"`,
        });
    }
  });

/** The validator's options; each tool's spec is typed by the value its schema parses. */
export type OutputValidatorOptions = Omit<z.input<typeof outputValidatorOptions>, "tools"> & {
  tools?: Readonly<Record<string, ToolOutputSpec>>;
};
