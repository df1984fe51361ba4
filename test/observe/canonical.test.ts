import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { canonicalJson } from "../../src/observe/canonical.js";

describe("canonicalJson", () => {
  it("ignores key order at every depth", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: "s" } })).toBe(
      canonicalJson({ a: { c: "s", d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
  });

  it("agrees with JSON.parse for plain JSON values", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it("writes JSON data the same whether it takes the native writer or its own", () => {
    // A Date beside the value keeps the whole array off the native path, so the value inside is
    // written piece by piece: both spellings must agree, keys in or out of order.
    const slow = (value: unknown) => canonicalJson([value, new Date(0)]);
    const dateJson = JSON.stringify(new Date(0));
    const data = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(fc.oneof(fc.string(), fc.nat().map(String)), fc.jsonValue()),
      fc.constantFrom(
        { b: 1, a: 2 },
        { 10: "x", 9: "y" },
        { a: [undefined, { z: undefined, y: -0 }] },
        [Number.NaN],
        // Keys that every object has a value for through its prototype.
        JSON.parse('{"b":{"__proto__":1},"a":{"c":2}}') as unknown,
        JSON.parse('{"b":{"constructor":"x","toString":1},"a":[{"c":2,"hasOwnProperty":3}]}') as unknown,
      ),
    );
    fc.assert(
      fc.property(data, (value) => {
        expect(slow(value)).toBe(`[${canonicalJson(value)},${dateJson}]`);
      }),
    );
  });

  it("is stable under key reordering of random objects", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(record));
      }),
    );
  });

  it("never throws on BigInt, cycles, Map, Set, bytes, functions, symbols and undefined", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const value = {
      big: 12n,
      cyclic,
      map: new Map([["k", 1]]),
      set: new Set([2, 1]),
      bytes: new Uint8Array([0, 255]),
      fn: function named() {},
      sym: Symbol("s"),
      missing: undefined,
      date: new Date(0),
      nan: Number.NaN,
    };
    const text = canonicalJson(value);
    expect(() => JSON.parse(text)).not.toThrow();
    expect(text).toContain('"12n"');
    expect(text).toContain('"[circular]"');
    expect(text).toContain('"00ff"');
    expect(text).not.toContain("missing");
    expect(canonicalJson(new Set([1, 2]))).toBe(canonicalJson(new Set([2, 1])));
  });

  it("tells apart values JSON.stringify would conflate", () => {
    expect(canonicalJson({ a: 1n })).not.toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson(new Map([["a", 1]]))).not.toBe(canonicalJson({}));
  });
});
