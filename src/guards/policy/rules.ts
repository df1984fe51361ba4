import { z } from "zod";

/**
 * Policy rules as data: the one schema behind the TypeScript helpers (helpers.ts) and the JSON
 * files people write without code. zod checks a rule set's shape; compile.ts checks what a shape
 * cannot say (unique ids, valid RE2 patterns, known placeholders).
 */

/** A JSON value, as rules compare arguments and context fields against it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

const json: z.ZodType<JsonValue> = z.json();

/**
 * A test of one value (an argument or a context field, found by a dot path). Every key given must
 * hold. A missing value is `undefined`: it equals nothing, is in no list, is no number, matches no
 * pattern; so `ne`, `notIn` and `not` hold for it. Write requirements as `not` of what grants
 * them (`{not: {gte: 18}}`) and a missing field is refused too.
 */
export interface Predicate {
  eq?: JsonValue;
  ne?: JsonValue;
  in?: JsonValue[];
  notIn?: JsonValue[];
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
  /** An RE2 pattern (linear time whatever the text), searched in a string value; anchor it with `^...$` for a whole match. */
  matches?: string;
  /** Whether the value is present (not undefined or null). */
  exists?: boolean;
  /** An array (or one value) with at least one element in the list; the explanation names those elements. */
  someIn?: JsonValue[];
  /** An array (or one value) with at least one element outside the list; the explanation names those elements. */
  someNotIn?: JsonValue[];
  not?: Predicate;
}

const predicate: z.ZodType<Predicate> = z.lazy(() =>
  z
    .strictObject({
      eq: json.optional(),
      ne: json.optional(),
      in: z.array(json).optional(),
      notIn: z.array(json).optional(),
      gt: z.number().optional(),
      gte: z.number().optional(),
      lt: z.number().optional(),
      lte: z.number().optional(),
      matches: z.string().min(1).max(1000).optional(),
      exists: z.boolean().optional(),
      someIn: z.array(json).optional(),
      someNotIn: z.array(json).optional(),
      not: predicate.optional(),
    })
    .refine(
      (p) => Object.values(p).some((v) => v !== undefined),
      "a predicate needs at least one test (eq, in, gte, matches, ...)",
    ),
);

/** Predicates by dot path (`"amount"`, `"to.0.address"`, `"profile.age"`); all must hold. */
export type Predicates = Record<string, Predicate>;

const predicates = z.record(z.string().min(1), predicate);

/** Tool names: exact, or globs where `*` stands for any run of characters (`"mcp__github__*"`). */
export type ToolPattern = string | string[];

const toolPattern = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)], {
  error: "must be a tool name, a * glob, or a non-empty list of them",
});

/** An earlier call of the thread, described by its tool, its arguments and how it ended. */
export interface CallPattern {
  tool: ToolPattern;
  args?: Predicates;
  /** Which results count: a tool that ran and succeeded, failed, or either (default). */
  status?: "success" | "error" | "any";
}

const callPattern = z.strictObject({
  tool: toolPattern,
  args: predicates.optional(),
  status: z.enum(["success", "error", "any"]).optional(),
});

/** Earlier calls counted: since the last user message (`"run"`) or in the whole thread (default). */
export type FlowScope = "run" | "thread";

const scope = z.enum(["run", "thread"]).optional();

/**
 * A condition over the call, the run's context and the thread's earlier calls.
 * - `tool`: the call's tool name matches (for rules over several tools);
 * - `args` / `context`: predicates by path;
 * - `after`: some earlier call matching the pattern ran and has its result in the thread;
 * - `count`: at least `atLeast` earlier calls match (those that ran, plus calls earlier in the
 *   same batch that reach this policy and that it lets through, so a batch cannot split a limit);
 * - `all` / `any` / `not`.
 */
export type Condition =
  | { tool: ToolPattern }
  | { args: Predicates }
  | { context: Predicates }
  | { after: CallPattern; scope?: FlowScope }
  | { count: CallPattern; atLeast: number; scope?: FlowScope }
  | { all: Condition[] }
  | { any: Condition[] }
  | { not: Condition };

const CONDITION_KINDS = ["tool", "args", "context", "after", "count", "all", "any", "not"] as const;

// One object with every key optional, checked for exactly one kind: zod then reports a mistake
// inside a condition at its own path (a union would only say "Invalid input" for the whole tree).
const condition: z.ZodType<Condition> = z.lazy(() =>
  z
    .strictObject({
      tool: toolPattern.optional(),
      args: predicates.optional(),
      context: predicates.optional(),
      after: callPattern.optional(),
      count: callPattern.optional(),
      atLeast: z.number().int().min(1).optional(),
      scope,
      all: z.array(condition).min(1).optional(),
      any: z.array(condition).min(1).optional(),
      not: condition.optional(),
    })
    .superRefine((c, ctx) => {
      const kinds = CONDITION_KINDS.filter((kind) => c[kind] !== undefined);
      if (kinds.length !== 1) {
        ctx.addIssue({
          code: "custom",
          message: `a condition has exactly one of ${CONDITION_KINDS.join(", ")}; this one has ${kinds.length === 0 ? "none" : kinds.join(" and ")}`,
        });
        return;
      }
      if (kinds[0] === "count" && c.atLeast === undefined)
        ctx.addIssue({ code: "custom", message: "count needs atLeast (a whole number >= 1)", path: ["atLeast"] });
      if (kinds[0] !== "count" && c.atLeast !== undefined)
        ctx.addIssue({ code: "custom", message: "atLeast belongs to count", path: ["atLeast"] });
      if (kinds[0] !== "count" && kinds[0] !== "after" && c.scope !== undefined)
        ctx.addIssue({ code: "custom", message: "scope belongs to after and count", path: ["scope"] });
    }),
) as unknown as z.ZodType<Condition>;

export type PolicyDecisionKind = "allow" | "deny" | "ask";
export type HumanDecisionKind = "approve" | "edit" | "reject";

/**
 * One rule. It matches a call when the tool name matches `tool` (any tool when omitted) and
 * `args`, `context` and `when` all hold. `reason` is what the model (deny) or the reviewer (ask)
 * reads; it may name `{found}` (the values the argument predicates and flow conditions caught), `{tool}`, `{args.<path>}`,
 * `{context.<path>}`.
 */
export interface PolicyRule {
  id: string;
  decision: PolicyDecisionKind;
  tool?: ToolPattern;
  args?: Predicates;
  context?: Predicates;
  when?: Condition;
  reason?: string;
  /** Higher first; default 0. See `PolicyRules` for how rules combine. */
  priority?: number;
  /** For `ask`: what the reviewer may answer, as in LangChain's humanInTheLoopMiddleware. Default all three. */
  allowedDecisions?: HumanDecisionKind[];
}

const rule = z
  .strictObject({
    id: z.string().min(1).max(200),
    decision: z.enum(["allow", "deny", "ask"]),
    tool: toolPattern.optional(),
    args: predicates.optional(),
    context: predicates.optional(),
    when: condition.optional(),
    reason: z.string().min(1).max(1000).optional(),
    priority: z.number().int().optional(),
    allowedDecisions: z
      .array(z.enum(["approve", "edit", "reject"]))
      .min(1)
      .optional(),
  })
  .refine((r) => r.decision === "allow" || r.reason !== undefined, {
    message: "a deny or ask rule needs a reason (the model or the reviewer reads it)",
    path: ["reason"],
  })
  .refine((r) => r.decision === "ask" || r.allowedDecisions === undefined, {
    message: "allowedDecisions belongs to ask rules",
    path: ["allowedDecisions"],
  });

/**
 * A policy. How rules combine: the highest `priority` at which some rule matches decides; at that
 * level a deny beats an ask, and an ask beats an allow (a deny names every deny rule that matched
 * there); rules at lower priorities are not consulted. With the default priority 0 everywhere this
 * is "deny overrides": adding an allow rule never lifts a deny, an exception needs a higher
 * priority. A call no rule matches gets `default` (default `"allow"`; `"deny"` for an allowlist).
 */
export interface PolicyRules {
  $schema?: string;
  rules: PolicyRule[];
  default?: PolicyDecisionKind;
  /** Reason the model reads when `default` denies (or the reviewer when it asks). */
  defaultReason?: string;
}

export const policyRulesSchema = z.strictObject({
  /** Where an editor finds the JSON Schema of this file (docs/policy.schema.json); ignored by the guard. */
  $schema: z.string().optional(),
  rules: z.array(rule),
  default: z.enum(["allow", "deny", "ask"]).optional(),
  defaultReason: z.string().min(1).max(1000).optional(),
});
