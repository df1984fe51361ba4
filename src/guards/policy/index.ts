// The policy guard's public parts. loadPolicyFile (it reads a file) is exported by "harness-kit/node"
// from its own file, so the main entry never loads node:fs.
export {
  PolicyGuardMiddleware,
  type PolicyGuardOptions,
  type PolicyReviewRequest,
  type PolicyReviewDecision,
} from "./PolicyGuardMiddleware.js";
export type { PolicyRules, PolicyRule, Predicates } from "./rules.js";
export { policyJsonSchema } from "./jsonSchema.js";
export { parsePolicy } from "./compile.js";
export * as policy from "./helpers.js";
