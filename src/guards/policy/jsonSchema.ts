import { z } from "zod";
import { policyRulesSchema } from "./rules.js";

/**
 * The JSON Schema of a rules file (draft 2020-12), for editors: point a file's `"$schema"` at
 * docs/policy.schema.json. It checks shapes only; the guard also checks unique ids, RE2 patterns,
 * placeholders, and that a condition has exactly one kind.
 */
export function policyJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(policyRulesSchema, { unrepresentable: "any", cycles: "ref", reused: "ref" }) as Record<
    string,
    unknown
  >;
}
