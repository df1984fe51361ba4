import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseToolArguments } from "../../../src/guards/repair/parseArguments.js";
import { scanArguments } from "../../../src/guards/repair/scanArguments.js";

// Keys that name something on Object.prototype: an assignment `object[key] = value` would set the
// prototype (`__proto__`) or shadow a method, where JSON.parse adds a plain own key.
const PROTOTYPE_KEYS = ["__proto__", "constructor", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf"];

/** Same value as JSON.parse would give: own keys in the same order, plain prototypes, same JSON. */
function expectSameAsJsonParse(actual: unknown, json: string): void {
  const expected: unknown = JSON.parse(json);
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
  const walk = (a: unknown, e: unknown): void => {
    if (e === null || typeof e !== "object") return;
    expect(Object.getPrototypeOf(a)).toBe(Object.getPrototypeOf(e));
    expect(Reflect.ownKeys(a as object)).toEqual(Reflect.ownKeys(e));
    for (const key of Object.keys(e))
      walk(Object.getOwnPropertyDescriptor(a, key)?.value, (e as Record<string, unknown>)[key]);
  };
  walk(actual, expected);
}

function renameSpecialKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(renameSpecialKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const name = PROTOTYPE_KEYS.includes(key) ? `${key}\u00e9` : key;
    Object.defineProperty(out, name, {
      value: renameSpecialKeys(item),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return out;
}

describe("repairs read every key as an own property, as JSON.parse does", () => {
  it.each([
    ['{"__proto__":1,}', '{"__proto__":1}'],
    ['```json\n{"__proto__":{"a":1},"b":2}\n```', '{"__proto__":{"a":1},"b":2}'],
    ['{"a":{"__proto__":[1,{"__proto__":null}]},}', '{"a":{"__proto__":[1,{"__proto__":null}]}}'],
    ['{"__proto__":"x" + "y",}', '{"__proto__":"xy"}'],
    ["{__proto__: 'a', constructor: 1, toString: true,}", '{"__proto__":"a","constructor":1,"toString":true}'],
  ])("%j", (raw, json) => {
    const parsed = parseToolArguments(raw);
    expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
    if (parsed.ok) expectSameAsJsonParse(parsed.args, json);
    // the cross-check's own reading agrees with jsonrepair, so nothing is called ambiguous
    expectSameAsJsonParse(scanArguments(raw).value, json);
  });

  it("a __proto__ key leaves the reading's prototype alone", () => {
    const value = scanArguments('{"__proto__":{"polluted":true},}').value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect((value as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("property: a key that names something on Object.prototype is read like any other key", () => {
    // Each object is compared with a twin whose special keys are renamed (with a letter the key
    // generator never makes, so no rename collides): both texts must get the same answer. Only the
    // names differ, so a refusal (jsonrepair gives up on some texts) must be the same refusal.
    const key = fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 4 }));
    const objects = fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 4 });
    fc.assert(
      fc.property(objects, fc.boolean(), (value, fence) => {
        const noisy = (json: string) => {
          const text = json.replace(/}$/, ",}");
          return fence ? "```json\n" + text + "\n```" : text;
        };
        const json = JSON.stringify(value);
        const twinJson = JSON.stringify(renameSpecialKeys(JSON.parse(json)));
        const parsed = parseToolArguments(noisy(json));
        const twin = parseToolArguments(noisy(twinJson));
        expect(parsed.ok, `${noisy(json)} -> ${JSON.stringify(parsed)}, twin ${JSON.stringify(twin)}`).toBe(twin.ok);
        if (parsed.ok) expectSameAsJsonParse(parsed.args, json);
        else if (!twin.ok) expect(parsed.problem.kind).toBe(twin.problem.kind);
      }),
      { numRuns: 200 },
    );
  });
});
