import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compilePolicy, parsePolicy } from "../../../src/guards/policy/compile.js";
import { decideBatch } from "../../../src/guards/policy/decide.js";

const section = readFileSync(new URL("../../../docs/guards/policy.md", import.meta.url), "utf8");

describe("the policy page's examples (docs/guards/policy.md)", () => {
  it("the JSON rules file is a valid policy that denies what it says", () => {
    const json = /```json\n([\s\S]*?)```/.exec(section)![1]!;
    const policy = compilePolicy(parsePolicy(JSON.parse(json)));
    const decide = (name: string, args: unknown, context: unknown) =>
      decideBatch(policy, context, [], [{ id: "c", name, args }])[0]!.verdict;
    expect(decide("query_ehr", { databases: ["lab", "diagnosis"] }, { role: "nursing" })).toMatchObject({
      decision: "deny",
      rules: [{ id: "nursing-access", reason: "access denied: role nursing may not read diagnosis" }],
    });
    expect(decide("book_hotel", {}, {}).decision).toBe("deny");
    expect(decide("book_hotel", {}, { age: 18 }).decision).toBe("allow");
  });
});
