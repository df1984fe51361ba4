import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  argsIdentity,
  argsKeyOf,
  argsShapeOf,
  nearSameArgs,
  normaliseArgs,
  normaliseText,
} from "../../src/observe/argsIdentity.js";
import { loadHasher } from "../../src/observe/hash.js";

const json = fc.jsonValue({ maxDepth: 3 });

describe("argument normalisation", () => {
  it("is idempotent, and returns the very value when nothing changes", () => {
    fc.assert(
      fc.property(json, (value) => {
        const once = normaliseArgs(value);
        expect(normaliseArgs(once)).toEqual(once);
        expect(normaliseArgs(once)).toBe(once);
      }),
    );
  });

  it("lower-cases keys and normalises values wherever the first change is, later spellings of a key winning", () => {
    // The definition, entry by entry: what the normalisation must equal.
    const byEntries = (value: unknown): unknown => {
      if (typeof value === "string" || value === null || typeof value !== "object") return normaliseArgs(value);
      if (Array.isArray(value)) return value.map(byEntries);
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toLowerCase(), byEntries(v)]));
    };
    const key = fc.constantFrom("a", "A", "path", "Path", "query", "QUERY", "n");
    const leaf = fc.oneof(fc.constantFrom("x", "X", "two  words", " pad", "Done"), fc.integer(), fc.boolean());
    const args = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, leaf, fc.dictionary(key, tie("value")), fc.array(tie("value"))),
    })).value;
    fc.assert(
      fc.property(fc.dictionary(key, args), (value) => {
        expect(normaliseArgs(value)).toEqual(byEntries(value));
      }),
    );
    expect(normaliseArgs({ a: 1, b: "x", C: 2, d: "Y" })).toEqual({ a: 1, b: "x", c: 2, d: "y" });
  });

  it("gives one key to spellings of one call: key order, casing, whitespace, comments in code", async () => {
    const hash = await loadHasher();
    const same = (a: unknown, b: unknown) => expect(argsKeyOf("t", a, hash)).toBe(argsKeyOf("t", b, hash));
    same({ q: "Flights to  Paris", limit: 5 }, { limit: 5, Q: "flights to paris " });
    same({ code: "x = 1  # set x\nprint(x)" }, { code: "x = 1\nprint(x)   // show it" });
    same({ code: "# header\nprint('#not a comment')" }, { code: "print('#not a comment')" });
    expect(argsKeyOf("t", { q: "a b" }, hash)).not.toBe(argsKeyOf("t", { q: "a  c" }, hash));
    // A '#' inside quotes is kept.
    expect(normaliseText("echo '# kept'\nls")).toBe("echo '# kept' ls");
  });

  it("reuses the exact fingerprint when normalising changed nothing", async () => {
    const hash = await loadHasher();
    expect(argsIdentity("t", { q: "plain" }, hash).exact).toBe(true);
    expect(argsIdentity("t", { q: "Plain" }, hash).exact).toBe(false);
  });
});

describe("near-duplicate arguments", () => {
  const near = (a: unknown, b: unknown) => nearSameArgs(argsShapeOf(a), argsShapeOf(b));

  it("is symmetric, and every call is near itself", () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        expect(near(a, b)).toBe(near(b, a));
        expect(near(a, a)).toBe(true);
      }),
    );
  });

  it("matches an added field or item, never a changed value", () => {
    const booking = { id: "R1", flights: [{ n: "HAT030", date: "2024-05-13" }], card: "gift_1" };
    expect(near(booking, { ...booking, insurance: "no" })).toBe(true);
    expect(near(booking, { ...booking, flights: [...booking.flights, { n: "HAT124", date: "2024-05-21" }] })).toBe(
      true,
    );
    expect(near(booking, { ...booking, card: "gift_2" })).toBe(false);
    expect(near({}, { card: "gift_2" })).toBe(false);
  });

  it("matches reworded instructions, but not another quoted value, another word order in a short text, or other code", () => {
    const ask = (text: string) => ({ request: text });
    expect(
      near(
        ask(
          "Please open the local file 'book.pdf', go to page 11 and read the endnote of the second-to-last paragraph.",
        ),
        ask(
          "Open the file 'book.pdf', navigate to page 11, and report the endnote of the second-to-last paragraph please.",
        ),
      ),
    ).toBe(true);
    expect(
      near(
        ask("I typed 'Wraith Falls Trail Yellowstone' into 'Enter your search here'."),
        ask("I typed 'Bunsen Peak Trail Yellowstone' into 'Enter your search here'."),
      ),
    ).toBe(false);
    expect(
      near({ command: "sed -i 's/None/0o644/' settings.py" }, { command: "sed -i 's/0o644/None/' settings.py" }),
    ).toBe(false);
    expect(near({ command: "pytest tests/test_a.py -x" }, { command: "pytest tests/test_b.py -x" })).toBe(false);
    expect(near({ command: "pytest -q" }, { command: "pytest -q | grep failed" })).toBe(false);
  });
});
