import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toolSpecs, toolSpecsCache } from "../../../src/guards/repair/toolSpecs.js";

const pool: unknown[] = [
  { name: "ls", schema: z.object({ path: z.string() }) },
  { name: "ls", schema: z.object({ dir: z.string() }) },
  { name: "read_file", schema: { type: "object" } },
  { type: "function", function: { name: "search", parameters: { type: "object" } } },
  { type: "function", function: { name: "ls", parameters: {} } },
  { name: 3 },
  null,
  "ls",
];

describe("toolSpecs", () => {
  it("reads client tools and function dicts by name, the last of a name winning", () => {
    const specs = toolSpecs(pool);
    expect([...specs.keys()]).toEqual(["ls", "read_file", "search"]);
    expect(specs.get("ls")).toEqual({ name: "ls", schema: {} });
  });
});

describe("toolSpecsCache", () => {
  it("gives the specs toolSpecs derives, whatever lists come in whatever order", () => {
    // Each step hands over the last list again, a new array of its items, or another list.
    const step = fc.oneof(
      fc.constant<"same">("same"),
      fc.constant<"copy">("copy"),
      fc.array(fc.nat({ max: pool.length - 1 }), { maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const specsOf = toolSpecsCache();
        let list: readonly unknown[] = [];
        for (const s of steps) {
          if (s === "copy") list = [...list];
          else if (s !== "same") list = s.map((i) => pool[i]);
          expect(specsOf(list)).toEqual(toolSpecs(list));
        }
      }),
    );
  });

  it("derives the specs once for a new array of the same tools, as a middleware's filter hands over", () => {
    const specsOf = toolSpecsCache();
    const tools = pool.slice(0, 4);
    const first = specsOf(tools);
    expect(specsOf(tools.filter(() => true))).toBe(first);
    expect(specsOf(tools.slice(0, 3))).not.toBe(first);
    expect(specsOf(tools)).toBe(first);
  });
});
