import fc from "fast-check";
import { jsonrepair } from "jsonrepair";
import { describe, expect, it } from "vitest";
import { parseToolArguments } from "../../../src/guards/repair/parseArguments.js";

describe("parseToolArguments: repairs that only fix syntax are accepted", () => {
  it.each([
    ["{'path': '/tmp/a'}", { path: "/tmp/a" }, "single_quotes"],
    ["{path: 'a', limit: 3}", { path: "a", limit: 3 }, "unquoted_keys"],
    ['{"path":"a",}', { path: "a" }, "trailing_commas"],
    ['```json\n{"path":"a"}\n```', { path: "a" }, "code_fence"],
    ['{"path": /* where */ "a"} // done', { path: "a" }, "comments"],
    ['{"a":True,"b":None}', { a: true, b: null }, "python_literals"],
    ['{"a":1 "b":2}', { a: 1, b: 2 }, "missing_commas"],
    ['{"text":"line one\nline two"}', { text: "line one\nline two" }, "control_characters"],
    ['{"a":"x" + "y"}', { a: "xy" }, "string_concatenation"],
    ['{"a":1}}', { a: 1 }, "extra_closing_brackets"],
  ])("%j", (raw, args, repair) => {
    const parsed = parseToolArguments(raw);
    expect(parsed).toMatchObject({ ok: true, args });
    if (parsed.ok) expect(parsed.repairs).toContain(repair);
  });

  it.each([
    ['{"path":"a"', { path: "a" }, ["path"]],
    ['{"a":{"b":[1,2]}', { a: { b: [1, 2] } }, ["a"]],
    ['{"recursive":true', { recursive: true }, ["recursive"]],
    ["{'path': 'x', 'recursive': True", { path: "x", recursive: true }, ["path", "recursive"]],
    ['{"tags":["a","b"]', { tags: ["a", "b"] }, ["tags"]],
  ])("%j: a missing closing brace is repaired when every key the tool declares is there", (raw, args, declaredKeys) => {
    expect(parseToolArguments(raw, { declaredKeys })).toMatchObject({
      ok: true,
      args,
      repairs: expect.arrayContaining(["missing_closing_brackets"]),
    });
  });

  it("accepts strict JSON as it is, without calling it a repair", () => {
    expect(parseToolArguments('{"path":"a","n":[1,2]}')).toEqual({
      ok: true,
      args: { path: "a", n: [1, 2] },
      repairs: [],
    });
  });

  it("passes already-parsed arguments through", () => {
    expect(parseToolArguments({ path: "a" })).toEqual({ ok: true, args: { path: "a" }, repairs: [] });
  });
});

describe("parseToolArguments: repairs that would change the meaning are refused", () => {
  it.each([
    ['{"limit":100', "cut_off", "number"],
    ['{"limit":-', "cut_off", "number"],
    ['{"ratio":1.', "cut_off", "number"],
    ['{"big":1e', "cut_off", "number"],
    ['{"ids":[1,2', "cut_off", "number"],
    ['{"path":"/etc/pas', "cut_off", "string"],
    ['{"path":"a\\', "cut_off", "string"],
    ['{"recursive":tr', "cut_off", "literal"],
    ['{"recursive":fals', "cut_off", "literal"],
    ['{"x":nul', "cut_off", "literal"],
    ['{"mode":fast', "cut_off", "word"],
    ['{"a":1,"recurs', "cut_off", "key"],
    ['{"a":1,', "cut_off", "after_comma"],
    ['{"files":["a","b",', "cut_off", "after_comma"],
  ])("%j is cut off", (raw, kind, what) => {
    expect(parseToolArguments(raw)).toMatchObject({ ok: false, problem: { kind, what } });
  });

  it.each([
    ['{"a":1,"b":', "b"],
    ['{"a":1,"b":}', "b"],
    ['{"a":1,"b","c":2}', "b"],
    ['{"a":1,"b"}', "b"],
  ])("%j has a key without a value", (raw, key) => {
    expect(parseToolArguments(raw)).toMatchObject({ ok: false, problem: { kind: "key_without_value", key } });
  });

  it.each([
    'Here you go:\n```json\n{"path":"a"}\n```\nDone',
    'Sure! {"path":"a"}',
    '{"path":"a"} hope this helps',
    '{"a":1}{"b":2}',
  ])("%j has surrounding text", (raw) => {
    expect(parseToolArguments(raw)).toMatchObject({ ok: false, problem: { kind: "surrounding_text" } });
  });

  it("refuses the array jsonrepair makes of prose around a fenced block", () => {
    const raw = 'Here you go:\n```json\n{"path":"a"}\n```\nDone';
    expect(Array.isArray(JSON.parse(jsonrepair(raw)))).toBe(true); // what jsonrepair alone would accept
    expect(parseToolArguments(raw).ok).toBe(false);
  });

  it.each([
    ['{"path":"a","path":"b"}', "path", "$"],
    ['{"opts":{"x":1,"x":2}}', "x", "$.opts"],
    ["{'a':1,'a':1}", "a", "$"],
  ])("%j has a duplicate key", (raw, key, path) => {
    expect(parseToolArguments(raw)).toMatchObject({ ok: false, problem: { kind: "duplicate_key", key, path } });
  });

  it.each([
    ['{"a":["["]', { a: ["", [""]] }],
    ['{"a":{"b":"{-"},"c":{}', { a: { b: '{-"}', c: {} } }],
    ['{"n": 0x10}', { n: "0x10" }],
  ])("refuses %j, which jsonrepair misreads, because a second reading disagrees", (raw, misread) => {
    expect(JSON.parse(jsonrepair(raw))).toEqual(misread);
    // every key declared, so that the missing brace alone would not refuse it
    expect(
      parseToolArguments(raw, { declaredKeys: ["a", "c", "n"].filter((k) => raw.includes(`"${k}"`)) }),
    ).toMatchObject({ ok: false, problem: { kind: "ambiguous_repair" } });
  });

  it("refuses text that is not JSON inside the object", () => {
    expect(parseToolArguments('{"a": @x}')).toMatchObject({ ok: false, problem: { kind: "stray_text" } });
  });

  it.each([
    ['{"path":"a"', undefined, "path"],
    ['{"path":"a"', ["path", "limit"], "path"],
    ['{"a":{"b":1}', ["a", "c"], "a"],
    ['{"tags":["a","b"', ["tags"], "tags"],
    ['{"a":{"b":1', ["a"], "a"],
  ])("%j ends without its closing brace while keys may be missing (declared: %j)", (raw, declaredKeys, lastKey) => {
    const parsed = parseToolArguments(raw, { declaredKeys });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok && parsed.problem.kind === "unclosed") expect(parsed.problem.lastKey).toBe(lastKey);
  });

  it("refuses elided items", () => {
    expect(parseToolArguments('{"ids":[1,2,3,...]}')).toMatchObject({ ok: false, problem: { kind: "elided_items" } });
  });

  it.each([
    ["[1,2]", "an array"],
    ['"path"', "a string"],
    ["null", "null"],
    ["42", "a number"],
  ])("%j is not an object", (raw, found) => {
    expect(parseToolArguments(raw)).toMatchObject({ ok: false, problem: { kind: "not_an_object", found } });
  });

  it.each(["", "   ", undefined, 7])("%j is missing", (raw) => {
    expect(parseToolArguments(raw)).toMatchObject({ ok: false, problem: { kind: "missing" } });
  });
});

/** `accepted` says nothing `original` does not: same scalars, no extra keys, arrays no longer. */
function isPrefixConsistent(accepted: unknown, original: unknown): boolean {
  if (Array.isArray(accepted)) {
    return (
      Array.isArray(original) &&
      accepted.length <= original.length &&
      accepted.every((item, i) => isPrefixConsistent(item, original[i]))
    );
  }
  if (accepted !== null && typeof accepted === "object") {
    if (original === null || typeof original !== "object" || Array.isArray(original)) return false;
    return Object.entries(accepted).every(
      ([key, value]) =>
        Object.hasOwn(original, key) && isPrefixConsistent(value, (original as Record<string, unknown>)[key]),
    );
  }
  return Object.is(accepted, original) || (accepted === 0 && original === 0);
}

const jsonObjects = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });

describe("parseToolArguments: properties", () => {
  it("never accepts a cut-off text as anything the full text did not say", () => {
    fc.assert(
      fc.property(jsonObjects, fc.boolean(), fc.nat(), (value, pretty, cutSeed) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const cut = text.slice(0, cutSeed % text.length);
        const parsed = parseToolArguments(cut);
        if (parsed.ok)
          expect(isPrefixConsistent(parsed.args, value), `${cut} -> ${JSON.stringify(parsed.args)}`).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it("returns strict JSON objects unchanged", () => {
    fc.assert(
      fc.property(jsonObjects, (value) => {
        expect(parseToolArguments(JSON.stringify(value))).toEqual({
          ok: true,
          args: JSON.parse(JSON.stringify(value)),
          repairs: [],
        });
      }),
    );
  });

  it("undoes syntax noise: a code fence, and a trailing comma or a missing closing brace", () => {
    fc.assert(
      fc.property(
        jsonObjects.filter((v) => Object.keys(v).length > 0),
        fc.boolean(),
        fc.boolean(),
        (value, fence, dropBrace) => {
          // a missing brace after a number reads as a cut-off number, and both noises at once
          // ("...,<end>") as arguments cut off after a comma: both are refused on purpose
          const json = JSON.stringify(value);
          const noisy = dropBrace && !/\d}$/.test(json) ? json.slice(0, -1) : json.replace(/}$/, ",}");
          const text = fence ? "```json\n" + noisy + "\n```" : noisy;
          const expected = JSON.parse(json);
          // every key is there: a missing brace cannot have cut any
          const parsed = parseToolArguments(text, { declaredKeys: Object.keys(value) });
          if (parsed.ok) {
            expect(parsed.args).toEqual(expected);
            return;
          }
          // a refusal may only come from jsonrepair: giving up, or misreading the text (which the
          // cross-check catches, e.g. '{"a":["["]' that jsonrepair turns into {"a":["",[""]]})
          expect(["unrepairable", "ambiguous_repair"]).toContain(parsed.problem.kind);
          if (parsed.problem.kind === "ambiguous_repair") expect(JSON.parse(jsonrepair(noisy))).not.toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("never throws, whatever the text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (raw) => {
        const parsed = parseToolArguments(raw);
        if (parsed.ok) expect(typeof parsed.args).toBe("object");
      }),
      { numRuns: 2000 },
    );
  });
});
