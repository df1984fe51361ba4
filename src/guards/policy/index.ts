// The policy guard's public parts. loadPolicyFile reads a file, so only "harness-kit/node" exports it.
export { PolicyGuardMiddleware, type PolicyGuardOptions, type PolicyReviewRequest, type PolicyReviewDecision } from "./PolicyGuardMiddleware.js";
export type { PolicyRules, PolicyRule, Predicates } from "./rules.js";
export { policyJsonSchema } from "./jsonSchema.js";
export { parsePolicy } from "./compile.js";
export * as policy from "./helpers.js";
export { loadPolicyFile } from "./loadPolicyFile.js";
