import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../../../src/core/errors.js";
import { compilePolicy } from "../../../src/guards/policy/compile.js";
import { PolicyGuardMiddleware } from "../../../src/guards/policy/PolicyGuardMiddleware.js";

function problem(policy: unknown): { option: string; problem: string } {
  try {
    compilePolicy(policy);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionsError);
    const e = error as InvalidOptionsError;
    expect(e.middleware).toBe("PolicyGuardMiddleware");
    return { option: e.option, problem: e.problem };
  }
  throw new Error("no error");
}

describe("bad rules fail at construction, saying where and what", () => {
  it.each([
    ["no rules list", {}, "policy.rules", /expected array/],
    ["a deny without a reason", { rules: [{ id: "a", decision: "deny" }] }, "policy.rules[0].reason", /needs a reason/],
    [
      "an unknown decision",
      { rules: [{ id: "a", decision: "block", reason: "r" }] },
      "policy.rules[0].decision",
      /allow|deny|ask/,
    ],
    [
      "an unknown rule key (a typo)",
      { rules: [{ id: "a", decision: "allow", tools: "x" }] },
      "policy.rules[0]",
      /tools/,
    ],
    [
      "allowedDecisions on a deny",
      { rules: [{ id: "a", decision: "deny", reason: "r", allowedDecisions: ["approve"] }] },
      "policy.rules[0].allowedDecisions",
      /ask rules/,
    ],
    [
      "an empty predicate",
      { rules: [{ id: "a", decision: "allow", args: { x: {} } }] },
      "policy.rules[0].args.x",
      /at least one test/,
    ],
    [
      "an unknown predicate key",
      { rules: [{ id: "a", decision: "allow", args: { x: { greaterThan: 3 } } }] },
      "policy.rules[0].args.x",
      /greaterThan/,
    ],
    [
      "a range bound that is not a number",
      { rules: [{ id: "a", decision: "allow", args: { x: { gt: "3" } } }] },
      "policy.rules[0].args.x.gt",
      /number/,
    ],
    [
      "a count below 1",
      { rules: [{ id: "a", decision: "allow", when: { count: { tool: "t" }, atLeast: 0 } }] },
      "policy.rules[0].when.atLeast",
      />=1/,
    ],
    [
      "a count without atLeast",
      { rules: [{ id: "a", decision: "allow", when: { count: { tool: "t" } } }] },
      "policy.rules[0].when.atLeast",
      /count needs atLeast/,
    ],
    [
      "a condition with two kinds",
      { rules: [{ id: "a", decision: "allow", when: { tool: "t", args: { x: { eq: 1 } } } }] },
      "policy.rules[0].when",
      /exactly one of .*has tool and args/,
    ],
    [
      "a typo deep in a condition",
      { rules: [{ id: "a", decision: "allow", when: { all: [{ after: { tool: "t", stat: "ok" } }] } }] },
      "policy.rules[0].when.all[0].after",
      /stat/,
    ],
    [
      "a flow pattern without a tool",
      { rules: [{ id: "a", decision: "allow", when: { after: {} } }] },
      "policy.rules[0].when.after.tool",
      /tool name, a \* glob/,
    ],
  ])("%s", (_, policy, option, message) => {
    const found = problem(policy);
    expect(found.option.startsWith(option)).toBe(true);
    expect(found.problem).toMatch(message);
  });

  it("a repeated id", () => {
    expect(
      problem({
        rules: [
          { id: "a", decision: "allow" },
          { id: "a", decision: "allow" },
        ],
      }),
    ).toEqual({
      option: "policy.rules[1].id",
      problem: 'repeats the id "a": explanations name rules by id',
    });
  });

  it("a pattern RE2 cannot run in linear time (a backreference, a lookbehind)", () => {
    expect(
      problem({ rules: [{ id: "a", decision: "deny", reason: "r", args: { x: { matches: "(a)\\1" } } }] }).option,
    ).toBe("policy.rules[0].args.x.matches");
    expect(
      problem({ rules: [{ id: "a", decision: "deny", reason: "r", when: { args: { x: { matches: "(?<=a)b" } } } }] }),
    ).toMatchObject({
      option: "policy.rules[0].when.args.x.matches",
      problem: expect.stringMatching(/^is not an RE2 pattern/),
    });
  });

  it("an unknown placeholder in a reason", () => {
    expect(problem({ rules: [{ id: "a", decision: "deny", reason: "role {role} may not" }] })).toEqual({
      option: "policy.rules[0].reason",
      problem: "has an unknown placeholder {role}: use {found}, {tool}, {args.<path>} or {context.<path>}",
    });
  });

  it("the middleware's constructor throws the same error, with the full message", () => {
    expect(() => new PolicyGuardMiddleware({ policy: { rules: [{ id: "a", decision: "ask" }] } })).toThrow(
      'PolicyGuardMiddleware: option "policy.rules[0].reason" a deny or ask rule needs a reason (the model or the reviewer reads it)',
    );
    expect(() => new PolicyGuardMiddleware(undefined as never)).toThrow(InvalidOptionsError);
    expect(() => new PolicyGuardMiddleware({ policy: { rules: [] }, observe_only: true } as never)).toThrow(
      /option "observe_only" is not a known option/,
    );
    expect(() => new PolicyGuardMiddleware({ policy: { rules: [] }, onSignal: "log" } as never)).toThrow(
      'PolicyGuardMiddleware: option "onSignal" must be a function',
    );
  });
});
