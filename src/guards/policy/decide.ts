import type { ToolCallView } from "../../core/messages.js";
import type { CallFacts, CompiledPolicy, CompiledRule } from "./compile.js";
import { pastCalls, type PastCall } from "./history.js";
import type { HumanDecisionKind } from "./rules.js";
import { defaultReasonText, type RuleReason } from "./texts.js";

/** A rule that decided a call, with its reason filled in and the values its predicates caught. */
export interface RuleHit extends RuleReason {
  found: string[];
}

/** What the policy decided for one call. `rule` / `rules` name the deciding rules; `"default"` when none matched. */
export type PolicyVerdict =
  | { decision: "allow"; rule: string }
  | { decision: "deny"; rules: RuleHit[] }
  | { decision: "ask"; rules: RuleHit[]; allowedDecisions: readonly HumanDecisionKind[] };

export interface CallVerdict {
  call: ToolCallView;
  verdict: PolicyVerdict;
}

export const DEFAULT_RULE_ID = "default";

/**
 * The policy's verdict on each call of a batch, in order: a pure function of the policy, the
 * run's context and the history before the batch (`history` ends with or before the AIMessage
 * that asked). Each call also sees the calls before it in the batch that the policy let through.
 */
export function decideBatch(
  policy: CompiledPolicy,
  context: unknown,
  history: readonly unknown[],
  batch: readonly ToolCallView[],
): CallVerdict[] {
  let past: readonly PastCall[] | undefined;
  const pastOnce = () => (past ??= pastCalls(history));
  const through: ToolCallView[] = [];
  const out: CallVerdict[] = [];
  for (const call of batch) {
    const verdict = decideCall(policy, { call, context, past: pastOnce, batchBefore: through.slice() });
    if (verdict.decision !== "deny") through.push(call);
    out.push({ call, verdict });
  }
  return out;
}

// Rules that can match a tool name, per policy and name: most policies name few tools.
const candidatesCache = new WeakMap<CompiledPolicy, Map<string, readonly CompiledRule[]>>();
const MAX_CACHED_NAMES = 1000;

function candidatesFor(policy: CompiledPolicy, name: string): readonly CompiledRule[] {
  let byName = candidatesCache.get(policy);
  if (!byName) candidatesCache.set(policy, (byName = new Map()));
  let rules = byName.get(name);
  if (!rules) {
    rules = policy.rules.filter((rule) => rule.tool(name));
    if (byName.size < MAX_CACHED_NAMES) byName.set(name, rules);
  }
  return rules;
}

export function decideCall(policy: CompiledPolicy, facts: CallFacts): PolicyVerdict {
  const denies: RuleHit[] = [];
  const asks: RuleHit[] = [];
  let allow: string | undefined;
  let askDecisions: readonly HumanDecisionKind[] | undefined;
  let level: number | undefined;
  for (const rule of candidatesFor(policy, facts.call.name)) {
    if (level !== undefined && rule.priority < level) break;
    const found: string[] = [];
    if (!rule.test(facts, found)) continue;
    level = rule.priority;
    if (rule.decision === "allow") allow ??= rule.id;
    else {
      const hit = { id: rule.id, reason: rule.reason ? rule.reason(facts, found) : "", found: [...new Set(found)] };
      if (rule.decision === "deny") denies.push(hit);
      else {
        asks.push(hit);
        askDecisions ??= rule.allowedDecisions;
      }
    }
  }
  if (denies.length > 0) return { decision: "deny", rules: denies };
  if (asks.length > 0) return { decision: "ask", rules: asks, allowedDecisions: askDecisions! };
  if (allow !== undefined) return { decision: "allow", rule: allow };
  if (policy.default === "allow") return { decision: "allow", rule: DEFAULT_RULE_ID };
  const hit = {
    id: DEFAULT_RULE_ID,
    reason: policy.defaultReason ?? defaultReasonText(facts.call.name, policy.default),
    found: [],
  };
  return policy.default === "deny"
    ? { decision: "deny", rules: [hit] }
    : { decision: "ask", rules: [hit], allowedDecisions: ["approve", "edit", "reject"] };
}
