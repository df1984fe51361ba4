import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { readJsonFile } from "../../src/replay/readJsonFile.js";

const dir = mkdtempSync(join(tmpdir(), "hk-read-json-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function fileOf(bytes: Buffer): string {
  const path = join(dir, `${files++}.json`);
  writeFileSync(path, bytes);
  return path;
}

/** What a file reads as: its value, or the reason it cannot be read. */
function readBack(path: string): unknown {
  try {
    return { value: readJsonFile(path, (reason) => new Error(reason)) };
  } catch (error) {
    return { reason: (error as Error).message };
  }
}

/** The same, read the plain way: the whole file decoded as UTF-8, then parsed. */
function readPlainly(path: string): unknown {
  try {
    return { value: JSON.parse(readFileSync(path, "utf8")) };
  } catch (error) {
    return { reason: `bad JSON (${(error as Error).message})` };
  }
}

describe("readJsonFile", () => {
  it("reads JSON with any characters as decoding the whole file would", () => {
    const text = fc.string({ unit: "binary", maxLength: 40 });
    const value = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 4 }), fc.integer())),
      fc.array(text, { maxLength: 8 }),
    );
    fc.assert(
      fc.property(value, fc.boolean(), (v, indented) => {
        const path = fileOf(Buffer.from(JSON.stringify(v, null, indented ? 2 : undefined), "utf8"));
        expect(readBack(path)).toEqual(readPlainly(path));
      }),
    );
  });

  it("reads a character split by a chunk's end, and one in every chunk", () => {
    for (const at of [4090, 4093, 4094, 4095, 4096, 8191]) {
      const path = fileOf(Buffer.from(JSON.stringify({ a: `${"x".repeat(at - 7)}é€😀`, b: "ü".repeat(3000) }), "utf8"));
      expect(readBack(path)).toEqual(readPlainly(path));
      expect((readBack(path) as { value: { a: string } }).value.a.endsWith("é€😀")).toBe(true);
    }
  });

  it("tells what is wrong with a file as decoding the whole file would", () => {
    const cases: Array<[string, Buffer]> = [
      ["an escaped backslash before a character", Buffer.from('{"a": "\\\\é"}', "utf8")],
      ["a backslash before a character", Buffer.from('{"a": "\\é"}', "utf8")],
      ["a character outside a string", Buffer.from('{"a": é}', "utf8")],
      ["a byte order mark", Buffer.from('\ufeff{"a": "é"}', "utf8")],
      ["a byte that is never UTF-8", Buffer.from([...Buffer.from('{"a": "'), 0xff, ...Buffer.from('é"}')])],
      ["a continuation byte alone", Buffer.from([...Buffer.from('{"a": "'), 0x80, ...Buffer.from('"}')])],
      ["a sequence cut short", Buffer.from([...Buffer.from('{"a": "'), 0xe2, 0x82, ...Buffer.from('"}')])],
      ["a sequence cut by the end", Buffer.from([...Buffer.from('{"a": "é"} '), 0xe2])],
      ["an overlong form", Buffer.from([...Buffer.from('{"a": "'), 0xc0, 0xaf, ...Buffer.from('"}')])],
      ["a surrogate", Buffer.from([...Buffer.from('{"a": "'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')])],
      [
        "a code point past Unicode",
        Buffer.from([...Buffer.from('{"a": "'), 0xf4, 0x90, 0x80, 0x80, ...Buffer.from('"}')]),
      ],
      ["bad JSON after a character", Buffer.from('{"a": "é",}', "utf8")],
      ["escapes and characters together", Buffer.from('{"a": "\\u00e9é\\ud83d\\ude00😀\\n"}', "utf8")],
    ];
    for (const [name, bytes] of cases) {
      const path = fileOf(bytes);
      expect(readBack(path), name).toEqual(readPlainly(path));
    }
    expect(readBack(join(dir, "missing.json"))).toEqual({
      reason: expect.stringContaining("cannot read the file (ENOENT") as unknown,
    });
  });
});
