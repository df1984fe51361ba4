import type {
  CallPattern,
  Condition,
  FlowScope,
  JsonValue,
  PolicyRule,
  Predicate,
  Predicates,
  ToolPattern,
} from "./rules.js";

/**
 * Typed helpers that write the same data a JSON policy holds, so a policy written in TypeScript
 * can be saved as JSON and replayed by `harness-kit eval --policy`.
 *
 * @example
 * const policy: PolicyRules = {
 *   rules: [
 *     deny("no-transfer-after-web", { tool: "transfer_funds", when: after("fetch_url"), reason: "a web page was read in this thread" }),
 *     ask("large-transfer", { tool: "transfer_funds", args: { amount: gt(1000) }, reason: "transfers over 1000 need approval" }),
 *   ],
 * };
 */

type RuleFields = Omit<PolicyRule, "id" | "decision">;
type ReasonedFields = RuleFields & { reason: string };

export const allow = (id: string, fields: Omit<RuleFields, "allowedDecisions" | "reason"> = {}): PolicyRule => ({
  id,
  decision: "allow",
  ...fields,
});
export const deny = (id: string, fields: Omit<ReasonedFields, "allowedDecisions">): PolicyRule => ({
  id,
  decision: "deny",
  ...fields,
});
export const ask = (id: string, fields: ReasonedFields): PolicyRule => ({ id, decision: "ask", ...fields });

// predicates on one value
export const eq = (value: JsonValue): Predicate => ({ eq: value });
export const ne = (value: JsonValue): Predicate => ({ ne: value });
export const oneOf = (values: readonly JsonValue[]): Predicate => ({ in: [...values] });
export const noneOf = (values: readonly JsonValue[]): Predicate => ({ notIn: [...values] });
export const gt = (bound: number): Predicate => ({ gt: bound });
export const gte = (bound: number): Predicate => ({ gte: bound });
export const lt = (bound: number): Predicate => ({ lt: bound });
export const lte = (bound: number): Predicate => ({ lte: bound });
/** `min <= value <= max`. */
export const between = (min: number, max: number): Predicate => ({ gte: min, lte: max });
/** An RE2 pattern found in a string value (linear time). */
export const matches = (pattern: string): Predicate => ({ matches: pattern });
export const present = (): Predicate => ({ exists: true });
export const absent = (): Predicate => ({ exists: false });
/** An array with some element in `values`; the explanation names them. */
export const someIn = (values: readonly JsonValue[]): Predicate => ({ someIn: [...values] });
/** An array with some element outside `values` (e.g. outside what a role may read); the explanation names them. */
export const someNotIn = (values: readonly JsonValue[]): Predicate => ({ someNotIn: [...values] });
export const isNot = (predicate: Predicate): Predicate => ({ not: predicate });

// conditions
export const args = (predicates: Predicates): Condition => ({ args: predicates });
export const context = (predicates: Predicates): Condition => ({ context: predicates });
export const all = (...conditions: Condition[]): Condition => ({ all: conditions });
export const any = (...conditions: Condition[]): Condition => ({ any: conditions });
export const not = (condition: Condition): Condition => ({ not: condition });

/** Some earlier call to `tool` ran and its result is in the thread (or, with `scope: "run"`, since the last user message). */
export const after = (
  tool: ToolPattern,
  options: Omit<CallPattern, "tool"> & { scope?: FlowScope } = {},
): Condition => {
  const { scope, ...pattern } = options;
  return { after: { tool, ...pattern }, ...(scope ? { scope } : {}) };
};

/** At least `atLeast` earlier calls to `tool` ran (earlier calls of the same batch that reach the policy count too). */
export const callsOf = (
  tool: ToolPattern,
  atLeast: number,
  options: Omit<CallPattern, "tool"> & { scope?: FlowScope } = {},
): Condition => {
  const { scope, ...pattern } = options;
  return { count: { tool, ...pattern }, atLeast, ...(scope ? { scope } : {}) };
};

/** Dot paths into `T` (`"role"`, `"profile.age"`), a few levels deep. */
export type PathsOf<T, Depth extends unknown[] = []> = Depth["length"] extends 4
  ? never
  : T extends readonly unknown[]
    ? never
    : T extends object
      ? {
          [K in keyof T & string]:
            K | (NonNullable<T[K]> extends object ? `${K}.${PathsOf<NonNullable<T[K]>, [...Depth, unknown]>}` : never);
        }[keyof T & string]
      : never;

/** Rule fields whose `context` keys are paths of the run's context type, so a misspelt field does not compile. */
type TypedFields<Ctx> = Omit<RuleFields, "context"> & { context?: Partial<Record<PathsOf<Ctx>, Predicate>> };

/**
 * The rule builders, typed by the run's context (`runtime.context`): `context` keys are checked
 * against it at compile time. The rules are the same data as the untyped builders write.
 *
 * @example
 * const { deny } = rulesFor<{ role: "nurse" | "physician"; profile: { age: number } }>();
 * deny("adults-only", { tool: "book_hotel", context: { "profile.age": isNot(gte(18)) }, reason: "under 18" });
 * deny("typo", { context: { "profile.agee": gte(1) }, reason: "x" }); // does not compile
 */
export function rulesFor<Ctx>() {
  return {
    allow: (id: string, fields: Omit<TypedFields<Ctx>, "allowedDecisions" | "reason"> = {}): PolicyRule =>
      allow(id, fields as RuleFields),
    deny: (id: string, fields: Omit<TypedFields<Ctx>, "allowedDecisions"> & { reason: string }): PolicyRule =>
      deny(id, fields as ReasonedFields),
    ask: (id: string, fields: TypedFields<Ctx> & { reason: string }): PolicyRule => ask(id, fields as ReasonedFields),
  };
}
