import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderValue } from "../../src/core/renderValue.js";

describe("renderValue", () => {
  it("writes JSON values exactly as JSON.stringify does", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(renderValue(value)).toBe(JSON.stringify(value));
      }),
    );
  });

  it.each([
    ["BigInt", { n: 12345678901234567890n }, '{"n":12345678901234567890}'],
    [
      "Map with string keys",
      new Map([
        ["a", 1],
        ["b", 2],
      ]),
      '{"a":1,"b":2}',
    ],
    ["Map with object keys", new Map([[{ id: 1 }, "x"]]), '[[{"id":1},"x"]]'],
    ["Set", new Set([1, "two"]), '[1,"two"]'],
    ["Error", Object.assign(new Error("boom"), { code: "E42" }), '{"name":"Error","message":"boom","code":"E42"}'],
    ["function inside", { f: function named() {} }, '{"f":"[function named]"}'],
    ["NaN and Infinity", [NaN, Infinity], '["NaN","Infinity"]'],
    ["Date", new Date(0), '"1970-01-01T00:00:00.000Z"'],
    ["undefined inside", { a: undefined, b: [undefined] }, '{"b":[null]}'],
    ["RegExp", /a+b/g, '"/a+b/g"'],
    ["symbol", Symbol("s"), '"Symbol(s)"'],
  ])("%s", (_label, value, expected) => {
    expect(renderValue(value)).toBe(expected);
  });

  it("writes a cycle as [circular] and keeps shared references", () => {
    const shared = { x: 1 };
    const node: Record<string, unknown> = { name: "a", left: shared, right: shared };
    node.self = node;
    expect(renderValue(node)).toBe('{"name":"a","left":{"x":1},"right":{"x":1},"self":"[circular]"}');
  });

  it("describes binary data by size and a bounded hex preview, whatever its size", () => {
    const megabyte = Buffer.alloc(1024 * 1024, 0xab);
    const text = renderValue({ data: megabyte });
    expect(text).toContain("1048576 bytes of binary data");
    expect(text).toContain("abababab");
    expect(text.length).toBeLessThan(200);
    expect(renderValue(new Float32Array([1, 2]))).toContain("8 bytes of binary data");
    expect(renderValue(new Uint8Array([1, 2, 255]).buffer)).toContain("first bytes in hex: 0102ff]");
  });

  it("cuts nesting that is too deep instead of overflowing the stack", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(renderValue(deep)).toContain("[nested too deep]");
  });

  it("never throws on a toJSON that throws", () => {
    expect(
      renderValue({
        toJSON() {
          throw new Error("no");
        },
      }),
    ).toBe('"[value whose toJSON failed]"');
  });
});
