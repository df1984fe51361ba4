import fc from "fast-check";
import { jsonrepair } from "jsonrepair";
import { describe, expect, it } from "vitest";
import { parseToolArguments } from "../../../src/guards/repair/parseArguments.js";
import { malformedCallText } from "../../../src/guards/repair/texts.js";
import { LEGITIMATE_REPAIRS, MEANING_CHANGES } from "./meaningCorpus.js";

/** Deep equality that tells -0 from 0 and never equates a rounded number with its literal. */
function sameMeaning(a: unknown, b: unknown): boolean {
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameMeaning(item, b[i]));
  if (a !== null && typeof a === "object") {
    if (b === null || typeof b !== "object" || Array.isArray(b)) return false;
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every(
        (key) =>
          Object.hasOwn(b, key) &&
          sameMeaning((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
      )
    );
  }
  return Object.is(a, b);
}

describe("the meaning-change corpus", () => {
  it("is large, and jsonrepair alone accepts most of it", () => {
    expect(MEANING_CHANGES.length).toBeGreaterThanOrEqual(150);
    const acceptedByJsonrepair = MEANING_CHANGES.filter(({ raw }) => {
      try {
        JSON.parse(jsonrepair(raw));
        return true;
      } catch {
        return false;
      }
    });
    expect(acceptedByJsonrepair.length).toBeGreaterThan(MEANING_CHANGES.length * 0.8);
  });

  it("0 meaning-changing repairs: every case is refused, or repaired to its one certain meaning", () => {
    const changed = MEANING_CHANGES.filter(({ raw, declaredKeys, certain }) => {
      const parsed = parseToolArguments(raw, { declaredKeys });
      return parsed.ok && !(certain !== undefined && sameMeaning(parsed.args, certain));
    });
    expect(
      changed.map(
        (c) =>
          `${c.why}: ${c.raw} -> ${JSON.stringify((parseToolArguments(c.raw, { declaredKeys: c.declaredKeys }) as { args: unknown }).args)}`,
      ),
    ).toEqual([]);
  });

  it("every refusal tells the model what to resend, in a bounded text", () => {
    for (const { raw, declaredKeys } of MEANING_CHANGES) {
      const parsed = parseToolArguments(raw, { declaredKeys });
      if (parsed.ok) continue;
      const text = malformedCallText("pay", parsed.problem, raw);
      expect(text, raw).toMatch(/^Your call to pay was not run: its arguments .+\. (Send|Write|Separate|Remove)[^.]*/);
      expect(text.length, raw).toBeLessThan(500);
    }
  });

  it("names the problem the issue lists", () => {
    const kind = (raw: string) => {
      const parsed = parseToolArguments(raw);
      return parsed.ok ? "accepted" : parsed.problem.kind;
    };
    expect(kind('{"a": NaN}')).toBe("not_json_value");
    expect(kind('{"a": Infinity,}')).toBe("not_json_value");
    expect(kind('{"id": 9007199254740993}')).toBe("imprecise_number");
    expect(kind('{"amount": 12345678901234567890}')).toBe("imprecise_number");
    expect(kind('{"x": 1e400}')).toBe("imprecise_number");
    expect(kind('{"path": "C:\\Users\\new\\file.txt"}')).toBe("invalid_escape");
    expect(kind('{"path": "a\\qb.txt"}')).toBe("invalid_escape");
    expect(kind('{"path": "a", "content": "x"')).toBe("unclosed");
  });
});

describe("legitimate repairs keep working", () => {
  it.each(LEGITIMATE_REPAIRS)("$why: $raw", ({ raw, args, declaredKeys }) => {
    const parsed = parseToolArguments(raw, { declaredKeys });
    expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
    if (parsed.ok) expect(sameMeaning(parsed.args, args), JSON.stringify(parsed.args)).toBe(true);
  });
});

/** A decimal text as an exact (digits, power of ten) pair, computed with BigInt: -0 and 0 are the same zero. */
function exactDecimal(text: string): { digits: bigint; exponent: number } {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(text)!;
  const fraction = match[3] ?? "";
  let digits = BigInt(`${match[2]}${fraction}`) * (match[1] === "-" ? -1n : 1n);
  let exponent = Number(match[4] ?? 0) - fraction.length + 0; // + 0: no -0 exponent
  if (digits === 0n) return { digits: 0n, exponent: 0 };
  while (digits % 10n === 0n) {
    digits /= 10n;
    exponent++;
  }
  return { digits, exponent };
}

describe("properties: no repair changes what was written", () => {
  const VALID_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t", "u", "'"]);

  it("a string written with raw backslashes is refused whenever one of them is no JSON escape", () => {
    const text = fc
      .array(fc.constantFrom("a", "b", "\\", "n", "t", "U", "q", "d", "0", ".", " ", "f"), { maxLength: 12 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, fc.constantFrom('{"p": "#",}', "{'p': '#'}", '{p: "#"', '{"p": "#"}'), (s, template) => {
        const raw = template.replace("#", s);
        const parsed = parseToolArguments(raw, { declaredKeys: ["p"] });
        const invalid = [...s.matchAll(/\\(.?)/g)].some(
          (m) => !VALID_ESCAPES.has(m[1]!) || (m[1] === "u" && !/^\\u[0-9a-fA-F]{4}/.test(s.slice(m.index))),
        );
        if (invalid) expect(parsed.ok, raw).toBe(false);
        if (parsed.ok && !s.includes("\\")) expect(parsed.args).toEqual({ p: s });
      }),
      { numRuns: 1500 },
    );
  });

  it("an integer literal is accepted only when the number the tool gets prints as that integer", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }), fc.boolean(), (n, repaired) => {
        const raw = repaired ? `{n: ${n},}` : `{"n": ${n}}`;
        const parsed = parseToolArguments(raw);
        if (parsed.ok) expect(exactDecimal(String(parsed.args.n))).toEqual(exactDecimal(String(n)));
        else expect(parsed.problem.kind).toBe("imprecise_number");
        if (n >= -(2n ** 53n) && n <= 2n ** 53n) expect(parsed.ok).toBe(true);
        if (String(Number(n)) !== String(n) && !/e/.test(String(Number(n)))) expect(parsed.ok).toBe(false);
      }),
      { numRuns: 1500 },
    );
  });

  it("a decimal literal is accepted only when the double prints back as the same decimal", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^-?(0|[1-9]\d{0,20})(\.\d{1,20})?(e[+-]?\d{1,3})?$/), (literal) => {
        const parsed = parseToolArguments(`{"n": ${literal}}`);
        if (!parsed.ok) return;
        const value = parsed.args.n as number;
        expect(Number.isFinite(value)).toBe(true);
        // the double's shortest form names the very decimal that was written
        expect(exactDecimal(String(value))).toEqual(exactDecimal(literal));
      }),
      { numRuns: 1500 },
    );
  });
});
