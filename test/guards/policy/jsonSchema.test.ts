import { readFileSync } from "node:fs";
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { policyJsonSchema } from "../../../src/guards/policy/jsonSchema.js";

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");

describe("the JSON Schema of a rules file (docs/policy.schema.json)", () => {
  it("is the one the rules' zod schema gives (regenerate with policyJsonSchema())", () => {
    expect(JSON.parse(read("docs/policy.schema.json"))).toEqual(policyJsonSchema());
  });

  it("accepts the evaluation's rules files and the policy page's example, and refuses a typo", () => {
    // @langchain/core's own JSON Schema validator (a dependency of every LangChain install)
    const validator = new Validator(policyJsonSchema() as never, "2020-12");
    for (const file of ["test/eval/policy/eicu-ac.rules.json", "test/eval/policy/mind2web-sc.rules.json"]) {
      expect(validator.validate(JSON.parse(read(file))).valid, file).toBe(true);
    }
    const section = read("docs/guards/policy.md");
    expect(validator.validate(JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!)).valid).toBe(true);
    expect(
      validator.validate({ $schema: "./policy.schema.json", rules: [{ id: "a", decision: "deny", tol: "x" }] }).valid,
    ).toBe(false);
  });
});
