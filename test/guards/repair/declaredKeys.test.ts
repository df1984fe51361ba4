import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import { declaredKeys } from "../../../src/guards/repair/declaredKeys.js";

describe("declaredKeys: the names a tool can receive, only when its schema closes the list", () => {
  it("reads Zod objects that strip or refuse unknown keys", () => {
    expect(declaredKeys(z.object({ path: z.string(), limit: z.number().optional() }))).toEqual(["path", "limit"]);
    expect(declaredKeys(z.object({ path: z.string() }).strict())).toEqual(["path"]);
    expect(declaredKeys(z3.z.object({ path: z3.z.string() }))).toEqual(["path"]);
    expect(declaredKeys(z3.z.object({ path: z3.z.string() }).strict())).toEqual(["path"]);
  });

  it("gives up where unknown keys reach the tool, or the schema is not a plain object", () => {
    expect(declaredKeys(z.looseObject({ path: z.string() }))).toBeUndefined();
    expect(declaredKeys(z.object({ path: z.string() }).catchall(z.number()))).toBeUndefined();
    expect(declaredKeys(z3.z.object({ path: z3.z.string() }).passthrough())).toBeUndefined();
    expect(declaredKeys(z3.z.object({ path: z3.z.string() }).catchall(z3.z.number()))).toBeUndefined();
    expect(declaredKeys(z.preprocess((v) => v, z.object({ path: z.string() })))).toBeUndefined();
    expect(declaredKeys(z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]))).toBeUndefined();
    expect(declaredKeys(undefined)).toBeUndefined();
  });

  it("reads JSON Schemas only with additionalProperties: false", () => {
    expect(
      declaredKeys({ type: "object", properties: { path: { type: "string" } }, additionalProperties: false }),
    ).toEqual(["path"]);
    expect(declaredKeys({ type: "object", properties: { path: { type: "string" } } })).toBeUndefined();
  });
});
