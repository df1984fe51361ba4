import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/guards/policy/compile.js";
import { decideBatch, type PolicyVerdict } from "../../../src/guards/policy/decide.js";
import {
  after,
  allow,
  ask,
  between,
  callsOf,
  deny,
  isNot,
  matches,
  oneOf,
  someNotIn,
} from "../../../src/guards/policy/helpers.js";
import type { PolicyRule, PolicyRules, Predicate } from "../../../src/guards/policy/rules.js";

const call = (name: string, args: unknown = {}, id = "c1") => ({ id, name, args });
const ai = (...calls: Array<{ id: string; name: string; args: unknown }>) => ({
  type: "ai",
  content: "",
  tool_calls: calls,
});
const result = (id: string, extra: Record<string, unknown> = {}) => ({
  type: "tool",
  content: "ok",
  tool_call_id: id,
  ...extra,
});
const human = (text = "go") => ({ type: "human", content: text });

function verdict(
  policy: PolicyRules,
  name: string,
  args: unknown = {},
  context?: unknown,
  history: unknown[] = [],
): PolicyVerdict {
  return decideBatch(compilePolicy(policy), context, history, [call(name, args)])[0]!.verdict;
}

function holds(predicate: Predicate, value: unknown): boolean {
  const args = value === undefined ? {} : { x: value };
  return verdict({ rules: [deny("r", { args: { x: predicate }, reason: "r" })] }, "t", args).decision === "deny";
}

describe("predicates", () => {
  it.each<[string, Predicate, unknown, boolean]>([
    ["eq on a number", { eq: 3 }, 3, true],
    ["eq keeps types apart", { eq: 3 }, "3", false],
    ["eq compares objects by content, any key order", { eq: { a: 1, b: [2] } }, { b: [2], a: 1 }, true],
    ["eq on a missing value", { eq: null }, undefined, false],
    ["ne on a missing value holds", { ne: "admin" }, undefined, true],
    ["in", { in: ["a", "b"] }, "b", true],
    ["in on a missing value", { in: ["a"] }, undefined, false],
    ["notIn on a missing value holds", { notIn: ["a"] }, undefined, true],
    ["a range", { gte: 18, lt: 65 }, 64.5, true],
    ["a range, upper bound", { gte: 18, lt: 65 }, 65, false],
    ["a range on a numeric string (no coercion)", { gt: 1 }, "5", false],
    ["matches searches anywhere", { matches: "evil\\.example" }, "https://evil.example/x", true],
    ["matches anchored", { matches: "^a+$" }, "aab", false],
    ["matches on a non-string", { matches: "1" }, 1, false],
    ["exists", { exists: true }, 0, true],
    ["exists: null is absent", { exists: true }, null, false],
    ["exists: false on a missing value", { exists: false }, undefined, true],
    ["someIn on an array", { someIn: ["x"] }, ["a", "x"], true],
    ["someIn on one value", { someIn: ["x"] }, "x", true],
    ["someNotIn", { someNotIn: ["a", "b"] }, ["a", "b"], false],
    ["someNotIn catches one outsider", { someNotIn: ["a", "b"] }, ["a", "c"], true],
    ["not", { not: { gte: 18 } }, 17, true],
    ["not on a missing value holds (fail closed)", { not: { gte: 18 } }, undefined, true],
    ["every key must hold", { gte: 1, in: [5, 7] }, 6, false],
  ])("%s", (_, predicate, value, expected) => {
    expect(holds(predicate, value)).toBe(expected);
  });

  it("paths reach nested keys and array indexes, not inherited properties", () => {
    const policy = {
      rules: [deny("r", { args: { "to.0.address": matches("@evil\\."), constructor: { exists: true } }, reason: "r" })],
    };
    expect(verdict(policy, "t", { to: [{ address: "a@evil.example" }] }).decision).toBe("allow"); // no own "constructor"
    const nested = { rules: [deny("r", { args: { "to.0.address": matches("@evil\\.") }, reason: "r" })] };
    expect(verdict(nested, "t", { to: [{ address: "a@evil.example" }] }).decision).toBe("deny");
    expect(verdict(nested, "t", { to: [{ address: "a@ok.example" }, { address: "b@evil.example" }] }).decision).toBe(
      "allow",
    );
  });

  it("patterns run in linear time: a catastrophic backtracking pattern answers at once on a long argument", () => {
    const policy = { rules: [deny("r", { args: { q: matches("(a+)+$") }, reason: "r" })] };
    const started = performance.now();
    expect(verdict(policy, "t", { q: `${"a".repeat(50_000)}!` }).decision).toBe("allow");
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("how rules combine", () => {
  const transfer = (amount: number) => ["transfer", { amount }] as const;

  it("deny overrides at equal priority, and names every deny rule that matched", () => {
    const policy: PolicyRules = {
      rules: [
        allow("small", { tool: "transfer", args: { amount: between(0, 100) } }),
        ask("review", { tool: "transfer", reason: "review" }),
        deny("night", { tool: "transfer", context: { hour: { gte: 22 } }, reason: "no transfers at night" }),
        deny("cap", { tool: "transfer", args: { amount: { gt: 50 } }, reason: "over 50 ({args.amount})" }),
      ],
    };
    expect(verdict(policy, ...transfer(10), { hour: 9 })).toMatchObject({ decision: "ask", rules: [{ id: "review" }] });
    const v = verdict(policy, ...transfer(80), { hour: 23 });
    expect(v).toMatchObject({
      decision: "deny",
      rules: [
        { id: "night", reason: "no transfers at night" },
        { id: "cap", reason: "over 50 (80)" },
      ],
    });
  });

  it("a higher priority decides alone: an exception lifts a deny", () => {
    const policy: PolicyRules = {
      rules: [
        deny("no-delete", { tool: "delete_*", reason: "no deletes" }),
        allow("admins", { tool: "delete_*", context: { role: { eq: "admin" } }, priority: 10 }),
      ],
    };
    expect(verdict(policy, "delete_user", {}, { role: "admin" })).toEqual({ decision: "allow", rule: "admins" });
    expect(verdict(policy, "delete_user", {}, { role: "dev" }).decision).toBe("deny");
    expect(verdict(policy, "list_users", {}, { role: "dev" })).toEqual({ decision: "allow", rule: "default" });
  });

  it("the default decides when nothing matches: an allowlist", () => {
    const policy: PolicyRules = { default: "deny", rules: [allow("reads", { tool: ["get_*", "list_*"] })] };
    expect(verdict(policy, "get_user").decision).toBe("allow");
    expect(verdict(policy, "drop_table")).toMatchObject({
      decision: "deny",
      rules: [{ id: "default", reason: "no rule allows drop_table" }],
    });
    expect(verdict({ ...policy, default: "ask" }, "drop_table")).toMatchObject({
      decision: "ask",
      allowedDecisions: ["approve", "edit", "reject"],
    });
  });

  it("{found} names what the arguments brought: the databases a role may not read", () => {
    const policy = {
      rules: [
        deny("access", {
          tool: "query",
          args: { tables: someNotIn(["patient", "lab"]) },
          reason: "may not read {found}",
        }),
      ],
    };
    expect(verdict(policy, "query", { tables: ["lab", "diagnosis", "cost"] })).toMatchObject({
      rules: [{ reason: "may not read diagnosis, cost", found: ["diagnosis", "cost"] }],
    });
  });

  it("a reason stays one line whatever the arguments hold", () => {
    const policy = { rules: [deny("r", { tool: "t", reason: "bad {args.q}" })] };
    const v = verdict(policy, "t", { q: "line one\nline two\n".repeat(40) }) as Extract<
      PolicyVerdict,
      { decision: "deny" }
    >;
    expect(v.rules[0]!.reason).not.toMatch(/\n/);
    expect(v.rules[0]!.reason.length).toBeLessThan(140);
  });
});

describe("flow conditions over the thread", () => {
  const policy: PolicyRules = {
    rules: [
      deny("taint", { tool: "transfer", when: after("fetch_url"), reason: "web content was read" }),
      deny("taint-run", {
        tool: "email",
        when: after("fetch_url", { scope: "run", status: "success" }),
        reason: "web content was read in this run",
      }),
      deny("limit", { tool: "email", when: callsOf("email", 2), reason: "two emails at most" }),
    ],
  };
  const compiled = compilePolicy(policy);
  const decide = (history: unknown[], batch = [call("transfer", {}, "now")]) =>
    decideBatch(compiled, {}, history, batch).map((v) => v.verdict.decision);

  it("after: a fetch_url that ran taints the thread; one a guard refused does not", () => {
    expect(decide([human(), ai(call("fetch_url", {}, "f")), result("f")])).toEqual(["deny"]);
    const refused = result("f", {
      status: "error",
      response_metadata: { harness_kit: { guard: "PathGuardMiddleware", action: "directive" } },
    });
    expect(decide([human(), ai(call("fetch_url", {}, "f")), refused])).toEqual(["allow"]);
    expect(decide([human(), ai(call("fetch_url", {}, "f"))])).toEqual(["allow"]); // no result yet
  });

  it("scope run: a fetch before the last user message does not count; status filters results", () => {
    const email = [call("email", {}, "e")];
    expect(decide([human(), ai(call("fetch_url", {}, "f")), result("f"), human("next")], email)).toEqual(["allow"]);
    expect(decide([human(), ai(call("fetch_url", {}, "f")), result("f")], email)).toEqual(["deny"]);
    expect(decide([human(), ai(call("fetch_url", {}, "f")), result("f", { status: "error" })], email)).toEqual([
      "allow",
    ]);
  });

  it("a summary is not a user message", () => {
    const summary = { type: "human", content: "summary", additional_kwargs: { lc_source: "summarization" } };
    expect(decide([human(), ai(call("fetch_url", {}, "f")), result("f"), summary], [call("email", {}, "e")])).toEqual([
      "deny",
    ]);
  });

  it("a reviewer's edit counts as the call that ran", () => {
    const edited = result("x", {
      response_metadata: { harness_kit_policy: { reviewed: "edit", edited: { name: "fetch_url", args: {} } } },
    });
    expect(decide([human(), ai(call("read_file", {}, "x")), edited])).toEqual(["deny"]);
  });

  it("count: earlier calls that ran plus earlier calls of the batch that the policy let through", () => {
    const history = [human(), ai(call("email", {}, "a")), result("a")];
    expect(decide(history, [call("email", {}, "b"), call("email", {}, "c"), call("email", {}, "d")])).toEqual([
      "allow",
      "deny",
      "deny",
    ]);
  });
});

describe("decisions are pure", () => {
  const value = fc.oneof(
    fc.integer({ min: -5, max: 5 }),
    fc.constantFrom("a", "b", "c"),
    fc.boolean(),
    fc.constant(null),
  );
  const predicate: fc.Arbitrary<Predicate> = fc.oneof(
    value.map((v) => ({ eq: v })),
    fc.array(value, { maxLength: 3 }).map((vs) => ({ in: vs })),
    fc.array(value, { maxLength: 3 }).map((vs) => ({ someNotIn: vs })),
    fc.integer({ min: -5, max: 5 }).map((n) => ({ gte: n })),
    fc.constantFrom("^a", "b|c").map((p) => ({ matches: p })),
    fc.integer({ min: -5, max: 5 }).map((n) => isNot({ lt: n })),
  );
  const rule = (id: string): fc.Arbitrary<PolicyRule> =>
    fc
      .record({
        decision: fc.constantFrom("allow", "deny", "ask") as fc.Arbitrary<"allow" | "deny" | "ask">,
        tool: fc.constantFrom("t1", "t2", "t*"),
        args: fc.option(fc.dictionary(fc.constantFrom("x", "y"), predicate, { maxKeys: 2 }), { nil: undefined }),
        context: fc.option(fc.dictionary(fc.constantFrom("role", "age"), predicate, { maxKeys: 1 }), {
          nil: undefined,
        }),
        priority: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
        flow: fc.boolean(),
      })
      .map(
        ({ flow, ...r }) =>
          ({
            id,
            reason: `reason ${id} {found}`,
            ...r,
            ...(flow ? { when: after("t1") } : {}),
            ...(r.args ? {} : { args: undefined }),
          }) as PolicyRule,
      );
  const rules = fc.array(fc.nat(), { maxLength: 5 }).chain((ns) => fc.tuple(...ns.map((_, i) => rule(`r${i}`))));
  const args = fc.dictionary(fc.constantFrom("x", "y"), fc.oneof(value, fc.array(value, { maxLength: 3 })), {
    maxKeys: 2,
  });
  const batch = fc
    .array(fc.record({ name: fc.constantFrom("t1", "t2", "t3"), args }), { minLength: 1, maxLength: 4 })
    .map((calls) => calls.map((c, i) => call(c.name, c.args, `b${i}`)));
  const context = fc.record({ role: value, age: fc.integer({ min: 0, max: 9 }) }, { requiredKeys: [] });
  const history = fc
    .boolean()
    .map((tainted) => (tainted ? [human(), ai(call("t1", {}, "h")), result("h")] : [human()]));

  it("the same from TypeScript rules and from their JSON, and the same on every call", () => {
    fc.assert(
      fc.property(rules, batch, context, history, (rs, calls, ctx, past) => {
        const policy: PolicyRules = { rules: JSON.parse(JSON.stringify(rs)) as PolicyRule[] };
        const fromTs = decideBatch(compilePolicy({ rules: rs }), ctx, past, calls);
        const fromJson = decideBatch(
          compilePolicy(JSON.parse(JSON.stringify(policy))),
          JSON.parse(JSON.stringify(ctx)),
          JSON.parse(JSON.stringify(past)),
          calls,
        );
        expect(fromJson).toEqual(fromTs);
        expect(decideBatch(compilePolicy({ rules: rs }), ctx, past, calls)).toEqual(fromTs);
      }),
      { numRuns: 300 },
    );
  });

  it("adding an allow rule at the same or a lower priority never lifts a deny", () => {
    fc.assert(
      fc.property(rules, batch, context, (rs, calls, ctx) => {
        const before = decideBatch(compilePolicy({ rules: rs }), ctx, [], calls);
        const withAllow = decideBatch(
          compilePolicy({ rules: [...rs, { id: "extra-allow", decision: "allow", priority: 0 }] }),
          ctx,
          [],
          calls,
        );
        before.forEach((v, i) => {
          if (v.verdict.decision === "deny") expect(withAllow[i]!.verdict.decision).toBe("deny");
        });
      }),
      { numRuns: 300 },
    );
  });

  it("never throws, whatever the arguments, context or history hold", () => {
    const cyclic: Record<string, unknown> = { role: "x" };
    cyclic.self = cyclic;
    const junk = fc.oneof(fc.anything(), fc.constant(cyclic), fc.constant(undefined), fc.string());
    fc.assert(
      fc.property(rules, junk, junk, fc.array(junk, { maxLength: 4 }), (rs, args, ctx, past) => {
        const verdicts = decideBatch(compilePolicy({ rules: rs }), ctx, past, [
          call("t1", args),
          call("t2", args, "c2"),
        ]);
        expect(verdicts).toHaveLength(2);
      }),
      { numRuns: 300 },
    );
  });

  it("TypeScript helpers write exactly the JSON a rules file holds", () => {
    expect(
      deny("r", { tool: "send", args: { to: oneOf(["a"]) }, when: callsOf("send", 3, { scope: "run" }), reason: "x" }),
    ).toEqual({
      id: "r",
      decision: "deny",
      tool: "send",
      args: { to: { in: ["a"] } },
      when: { count: { tool: "send" }, atLeast: 3, scope: "run" },
      reason: "x",
    });
  });
});

describe("rulesFor<Context>()", () => {
  it("checks context paths at compile time and writes the same rules as the untyped builders", async () => {
    const { rulesFor, gte: atLeast, isNot: not } = await import("../../../src/guards/policy/helpers.js");
    const typed = rulesFor<{ role: "nurse" | "physician"; profile: { age: number; member: boolean } }>();
    const rule = typed.deny("adults", {
      tool: "book_hotel",
      context: { "profile.age": not(atLeast(18)) },
      reason: "under 18",
    });
    expect(rule).toEqual(
      deny("adults", { tool: "book_hotel", context: { "profile.age": { not: { gte: 18 } } }, reason: "under 18" }),
    );
    // @ts-expect-error a misspelt context path does not compile
    typed.deny("typo", { context: { "profile.agee": atLeast(1) }, reason: "x" });
    expect(verdict({ rules: [rule] }, "book_hotel", {}, { profile: { age: 16 } }).decision).toBe("deny");
  });
});
