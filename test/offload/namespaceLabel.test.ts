import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { namespaceLabelForThread } from "../../src/offload/LangGraphOffloadStore.js";

/** Strings of any UTF-16 units, lone surrogates included. */
const anyUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) });

describe("namespaceLabelForThread", () => {
  it("gives distinct threads distinct labels that every LangGraph store accepts (PostgresStore refuses . % _ \\)", () => {
    fc.assert(
      fc.property(anyUnits, anyUnits, (a, b) => {
        const label = namespaceLabelForThread(a);
        expect(label).toMatch(/^thread-[a-z0-9~A-F-]*$/);
        expect(label).not.toBe(namespaceLabelForThread(undefined));
        if (a !== b) expect(label).not.toBe(namespaceLabelForThread(b));
      }),
    );
    expect(namespaceLabelForThread("Ab_c.d%e")).toBe("thread-~0041b~005Fc~002Ed~0025e");
    expect(namespaceLabelForThread("\ud800")).not.toBe(namespaceLabelForThread("\udc00"));
  });
});
