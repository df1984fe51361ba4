import { InvalidOptionsError } from "../../core/errors.js";
import type { ToolCallView } from "../../core/messages.js";
import type { PastCall } from "./history.js";
import { compileSearch, compileToolPattern, type TextTest } from "./patterns.js";
import {
  policyRulesSchema,
  type CallPattern,
  type Condition,
  type HumanDecisionKind,
  type PolicyDecisionKind,
  type PolicyRules,
  type Predicate,
  type Predicates,
} from "./rules.js";
import { absentValueText, earlierCallsText, foundText } from "./texts.js";
import { equalityKey, shown, valueAt } from "./values.js";

/** The name bad rules are reported under. */
export const POLICY_GUARD = "PolicyGuardMiddleware";

/** What a rule reads about one call. */
export interface CallFacts {
  call: ToolCallView;
  context: unknown;
  /** Earlier calls of the thread, computed once per batch and only if a flow condition asks. */
  past: () => readonly PastCall[];
  /** Calls earlier in the same batch that reach this policy and that it lets through (allowed or asked). */
  batchBefore: readonly ToolCallView[];
}

/** A test that adds what it caught (values shown in explanations) to `found`. */
type Test = (facts: CallFacts, found: string[]) => boolean;

export interface CompiledRule {
  id: string;
  decision: PolicyDecisionKind;
  priority: number;
  tool: TextTest;
  test: Test;
  reason: Template | undefined;
  allowedDecisions: readonly HumanDecisionKind[];
}

export interface CompiledPolicy {
  /** Highest priority first; equal priorities keep their order. */
  rules: readonly CompiledRule[];
  default: PolicyDecisionKind;
  defaultReason: string | undefined;
}

export const ALL_HUMAN_DECISIONS: readonly HumanDecisionKind[] = Object.freeze(["approve", "edit", "reject"]);

/**
 * Checks and compiles a policy; anything wrong throws `InvalidOptionsError` naming where
 * (`rules[2].args.amount.matches`) and what.
 */
export function compilePolicy(input: unknown, option = "policy"): CompiledPolicy {
  const parsed = policyRulesSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InvalidOptionsError(POLICY_GUARD, pathText(option, issue.path), issue.message);
  }
  const policy = parsed.data as PolicyRules;
  const seen = new Set<string>();
  const rules = policy.rules.map((rule, index) => {
    const at = `${option}.rules[${index}]`;
    if (seen.has(rule.id))
      throw new InvalidOptionsError(
        POLICY_GUARD,
        `${at}.id`,
        `repeats the id "${rule.id}": explanations name rules by id`,
      );
    seen.add(rule.id);
    const tests: Test[] = [];
    if (rule.args) tests.push(predicatesTest(rule.args, "args", `${at}.args`));
    if (rule.context) tests.push(predicatesTest(rule.context, "context", `${at}.context`));
    if (rule.when) tests.push(conditionTest(rule.when, `${at}.when`));
    return {
      id: rule.id,
      decision: rule.decision,
      priority: rule.priority ?? 0,
      tool: rule.tool === undefined ? () => true : guarded(`${at}.tool`, () => compileToolPattern(rule.tool!)),
      test: allOf(tests),
      reason: rule.reason === undefined ? undefined : compileTemplate(rule.reason, `${at}.reason`),
      allowedDecisions: rule.allowedDecisions ?? ALL_HUMAN_DECISIONS,
    } satisfies CompiledRule;
  });
  const ordered = rules
    .map((rule, index) => ({ rule, index }))
    .sort((a, b) => b.rule.priority - a.rule.priority || a.index - b.index);
  return {
    rules: ordered.map(({ rule }) => rule),
    default: policy.default ?? "allow",
    defaultReason: policy.defaultReason,
  };
}

function pathText(option: string, path: readonly PropertyKey[]): string {
  let text = option;
  for (const key of path) text += typeof key === "number" ? `[${key}]` : `.${String(key)}`;
  return text;
}

function guarded<T>(option: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw new InvalidOptionsError(POLICY_GUARD, option, error instanceof Error ? error.message : String(error));
  }
}

function allOf(tests: readonly Test[]): Test {
  if (tests.length === 0) return () => true;
  if (tests.length === 1) return tests[0]!;
  return (facts, found) => tests.every((test) => test(facts, found));
}

function predicatesTest(spec: Predicates, root: "args" | "context", option: string): Test {
  const checks = Object.entries(spec).map(([path, predicate]) => {
    const keys = path.split(".");
    const check = compilePredicate(predicate, `${option}.${path}`);
    return (subject: unknown, found: string[]) => check(valueAt(subject, keys), found);
  });
  return root === "args"
    ? (facts, found) => checks.every((check) => check(facts.call.args, found))
    : (facts) => checks.every((check) => check(facts.context, [])); // {found} is what the call brought; {context.x} names the rest
}

type ValueTest = (value: unknown, found: string[]) => boolean;

function compilePredicate(p: Predicate, option: string): ValueTest {
  const tests: ValueTest[] = [];
  const caught = (value: unknown, found: string[]) => {
    if (value !== undefined) found.push(shown(value));
    return true;
  };
  if (p.eq !== undefined) {
    const key = equalityKey(p.eq);
    tests.push((v, f) => v !== undefined && equalityKey(v) === key && caught(v, f));
  }
  if (p.ne !== undefined) {
    const key = equalityKey(p.ne);
    tests.push((v, f) => (v === undefined || equalityKey(v) !== key) && caught(v, f));
  }
  if (p.in !== undefined) {
    const set = keySet(p.in);
    tests.push((v, f) => v !== undefined && set.has(equalityKey(v)) && caught(v, f));
  }
  if (p.notIn !== undefined) {
    const set = keySet(p.notIn);
    tests.push((v, f) => (v === undefined || !set.has(equalityKey(v))) && caught(v, f));
  }
  const bounds: Array<[number | undefined, (v: number, b: number) => boolean]> = [
    [p.gt, (v, b) => v > b],
    [p.gte, (v, b) => v >= b],
    [p.lt, (v, b) => v < b],
    [p.lte, (v, b) => v <= b],
  ];
  for (const [bound, compare] of bounds) {
    if (bound !== undefined) tests.push((v, f) => typeof v === "number" && compare(v, bound) && caught(v, f));
  }
  if (p.matches !== undefined) {
    const search = guarded(`${option}.matches`, () => compileSearch(p.matches!));
    tests.push((v, f) => typeof v === "string" && search(v) && caught(v, f));
  }
  if (p.exists !== undefined) {
    const wanted = p.exists;
    tests.push((v, f) => (v !== undefined && v !== null) === wanted && (wanted ? caught(v, f) : true));
  }
  if (p.someIn !== undefined) {
    const set = keySet(p.someIn);
    tests.push((v, f) => collect(v, (e) => set.has(equalityKey(e)), f));
  }
  if (p.someNotIn !== undefined) {
    const set = keySet(p.someNotIn);
    tests.push((v, f) => collect(v, (e) => !set.has(equalityKey(e)), f));
  }
  if (p.not !== undefined) {
    const inner = compilePredicate(p.not, `${option}.not`);
    tests.push((v, f) => !inner(v, []) && caught(v, f));
  }
  // Values are caught only when the whole predicate holds: a failed test leaves `found` as it was.
  return (value, found) => {
    const mark = found.length;
    for (const test of tests) {
      if (!test(value, found)) {
        found.length = mark;
        return false;
      }
    }
    return true;
  };
}

function keySet(values: readonly unknown[]): Set<string> {
  return new Set(values.map(equalityKey));
}

/** Elements of an array (or the one value) that pass `keep`, added to `found`; whether there were any. */
function collect(value: unknown, keep: (element: unknown) => boolean, found: string[]): boolean {
  if (value === undefined) return false;
  const elements = Array.isArray(value) ? value : [value];
  let any = false;
  for (const element of elements) {
    if (!keep(element)) continue;
    found.push(shown(element));
    any = true;
  }
  return any;
}

function conditionTest(c: Condition, option: string): Test {
  if ("tool" in c) {
    const tool = guarded(`${option}.tool`, () => compileToolPattern(c.tool));
    return (facts) => tool(facts.call.name);
  }
  if ("args" in c) return predicatesTest(c.args, "args", `${option}.args`);
  if ("context" in c) return predicatesTest(c.context, "context", `${option}.context`);
  if ("all" in c) return allOf(c.all.map((inner, i) => conditionTest(inner, `${option}.all[${i}]`)));
  if ("any" in c) {
    const tests = c.any.map((inner, i) => conditionTest(inner, `${option}.any[${i}]`));
    // Every branch runs, so the explanation names all it caught.
    return (facts, found) => tests.reduce((held, test) => test(facts, found) || held, false);
  }
  if ("not" in c) {
    const inner = conditionTest(c.not, `${option}.not`);
    return (facts) => !inner(facts, []);
  }
  if ("after" in c) {
    const matches = callPatternTest(c.after, `${option}.after`);
    const inRunOnly = c.scope === "run";
    return (facts, found) => {
      for (const past of facts.past()) {
        if (past.ran && (!inRunOnly || past.inRun) && matches(past)) {
          found.push(past.name);
          return true;
        }
      }
      return false;
    };
  }
  const matches = callPatternTest(c.count, `${option}.count`);
  const inRunOnly = c.scope === "run";
  const atLeast = c.atLeast;
  return (facts, found) => {
    let n = 0;
    for (const past of facts.past()) if (past.ran && (!inRunOnly || past.inRun) && matches(past)) n++;
    for (const sibling of facts.batchBefore)
      if (matches({ ...sibling, ran: true, status: undefined, inRun: true })) n++;
    if (n < atLeast) return false;
    found.push(earlierCallsText(n));
    return true;
  };
}

function callPatternTest(pattern: CallPattern, option: string): (past: PastCall) => boolean {
  const tool = guarded(`${option}.tool`, () => compileToolPattern(pattern.tool));
  const args = pattern.args ? predicatesTest(pattern.args, "args", `${option}.args`) : undefined;
  const status = pattern.status ?? "any";
  return (past) => {
    if (!tool(past.name)) return false;
    if (status !== "any" && past.status !== undefined && past.status !== status) return false;
    if (!args) return true;
    return args(
      { call: { id: "", name: past.name, args: past.args }, context: undefined, past: () => [], batchBefore: [] },
      [],
    );
  };
}

/** A reason with placeholders filled in from the call. */
export type Template = (facts: CallFacts, found: readonly string[]) => string;

const PLACEHOLDER = /\{([^{}]*)\}/g;

function compileTemplate(text: string, option: string): Template {
  const parts: Array<string | ((facts: CallFacts, found: readonly string[]) => string)> = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    parts.push(text.slice(last, match.index));
    last = match.index! + match[0].length;
    const name = match[1]!;
    if (name === "found") parts.push((_, found) => foundText(found));
    else if (name === "tool") parts.push((facts) => facts.call.name);
    else if (name.startsWith("args.") || name.startsWith("context.")) {
      const [root, ...keys] = name.split(".");
      parts.push((facts) => {
        const value = valueAt(root === "args" ? facts.call.args : facts.context, keys);
        return value === undefined ? absentValueText() : shown(value);
      });
    } else
      throw new InvalidOptionsError(
        POLICY_GUARD,
        option,
        `has an unknown placeholder {${name}}: use {found}, {tool}, {args.<path>} or {context.<path>}`,
      );
  }
  parts.push(text.slice(last));
  return (facts, found) =>
    parts
      .map((part) => (typeof part === "string" ? part : part(facts, found)))
      .join("")
      .replace(/\s+/g, " ")
      .trim();
}

/** JSON rules checked as the middleware checks them, typed: `InvalidOptionsError` when they are not valid. */
export function parsePolicy(value: unknown): PolicyRules {
  compilePolicy(value);
  return value as PolicyRules;
}
