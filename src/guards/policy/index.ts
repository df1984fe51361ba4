export type { PolicyRules, PolicyRule, Predicate, Predicates, Condition, CallPattern, ToolPattern, FlowScope, JsonValue, PolicyDecisionKind, HumanDecisionKind } from "./rules.js";
export { policyRulesSchema } from "./rules.js";
export { policyJsonSchema } from "./jsonSchema.js";
export { compilePolicy, parsePolicy, type CompiledPolicy } from "./compile.js";
export { decideBatch, decideCall, DEFAULT_RULE_ID, type PolicyVerdict, type CallVerdict, type RuleHit } from "./decide.js";
export { pastCalls, POLICY_METADATA_KEY, type PastCall } from "./history.js";
export * as policy from "./helpers.js";
