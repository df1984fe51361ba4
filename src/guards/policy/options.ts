import { z } from "zod";
import { guardOptions } from "../../core/baseOptions.js";
import type { PolicyRules } from "./rules.js";

/** Options, their defaults and their meaning in one place; bad options fail at construction. */
export const policyGuardOptions = guardOptions
  .extend({
    // Checked by compilePolicy, which names the rule at fault.
    policy: z
      .custom<PolicyRules>(() => true)
      .describe('The rules (TypeScript, or JSON loaded with `loadPolicyFile` from "harness-kit/node"). Required.'),
    observeOnly: guardOptions.shape.observeOnly.describe(
      "Emit signals only (with `detail.observeOnly`): a deny or an ask lets the call run. Default false.",
    ),
    onSignal: guardOptions.shape.onSignal.describe(
      "Receives every deny, every reviewer's answer, and in observe-only mode every ask.",
    ),
  })
  .strict();

export type PolicyGuardOptions = z.input<typeof policyGuardOptions>;
