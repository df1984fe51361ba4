import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { checkArguments } from "../../../src/guards/repair/validateArguments.js";

const bad = { path: 5, limit: 0, extra: 1 };

describe("checkArguments", () => {
  it("reports zod v4 problems one line per argument, without stack traces", async () => {
    const schema = z.object({ path: z.string(), limit: z.number().int().min(1).optional() }).strict();
    const check = await checkArguments(schema, bad);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.issues[0]).toMatch(/^path: .*expected string/);
    expect(check.issues.some((line) => line.startsWith("limit: "))).toBe(true);
    expect(check.issues.join("\n")).not.toMatch(/\bat\s.*\.(ts|js):\d+/);
  });

  it("works with zod v3 schemas", async () => {
    const check = await checkArguments(z3.object({ path: z3.string() }), { path: 5 });
    expect(check).toMatchObject({ ok: false, issues: [expect.stringMatching(/^path: /)] });
  });

  it("works with JSON Schema and keeps only the specific errors", async () => {
    const schema = {
      type: "object",
      properties: { path: { type: "string" }, limit: { type: "integer", minimum: 1 } },
      required: ["path"],
    };
    const check = await checkArguments(schema, { limit: 0 });
    expect(check).toMatchObject({ ok: false });
    if (check.ok) return;
    expect(check.issues).toContain('Instance does not have required property "path".');
    expect(check.issues).toContain("limit: 0 is less than 1.");
    expect(check.issues.some((line) => line.includes("does not match schema"))).toBe(false);
  });

  it("caps the list at five problems", async () => {
    const schema = z.object(Object.fromEntries("abcdefgh".split("").map((k) => [k, z.string()])));
    const check = await checkArguments(schema, {});
    expect(check.ok ? [] : check.issues).toHaveLength(6);
    expect(check.ok ? "" : check.issues.at(-1)).toBe("and 3 more");
  });

  it("accepts valid arguments and tools without a schema", async () => {
    expect(await checkArguments(z.object({ path: z.string() }), { path: "a" })).toEqual({ ok: true });
    expect(await checkArguments(undefined, { anything: 1 })).toEqual({ ok: true });
  });
});
