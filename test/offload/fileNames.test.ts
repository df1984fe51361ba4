import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { dirname, join, resolve } from "node:path";
import { fileNameForKey, scopeNameForThread } from "../../src/offload/fileNames.js";
import { offloadKey, isOffloadKey } from "../../src/offload/keys.js";

const keyArb = fc.oneof(
  fc.string({ unit: "binary", maxLength: 400 }),
  fc.constantFrom("..", ".", "../../etc/passwd", "..\\..\\windows", "/abs/path", "a/b", "CON", "nul", "", "\u0000", "x".repeat(1000)),
  fc.array(fc.constantFrom("..", "/", "\\", ".", "a", "%2e", "\u0000", "é"), { maxLength: 30 }).map((parts) => parts.join("")),
);

describe("fileNameForKey", () => {
  it("always names a file directly inside the store's folder", () => {
    const dir = resolve("/srv/offload");
    fc.assert(
      fc.property(keyArb, (key) => {
        const name = fileNameForKey(key);
        expect(name).not.toMatch(/[/\\\u0000]/);
        expect(name).not.toBe(".");
        expect(name).not.toBe("..");
        expect(name.length).toBeLessThanOrEqual(200);
        expect(dirname(join(dir, name))).toBe(dir);
      }),
      { numRuns: 1000 },
    );
  });

  it("gives distinct keys distinct names, case included", () => {
    fc.assert(
      fc.property(keyArb, keyArb, (a, b) => {
        fc.pre(a !== b);
        expect(fileNameForKey(a)).not.toBe(fileNameForKey(b));
      }),
      { numRuns: 1000 },
    );
    expect(fileNameForKey("call_ABC").toLowerCase()).not.toBe(fileNameForKey("call_abc").toLowerCase());
  });

  it("keeps the keys the budget makes readable", () => {
    expect(fileNameForKey("fetch_logs-call_1")).toBe("result-fetch_logs-call_1.txt");
    expect(fileNameForKey("../x")).toBe("result-%2E%2E%2Fx.txt");
  });
});

describe("offloadKey", () => {
  it("makes safe, distinct keys from tool names and call ids", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.string({ maxLength: 100 }), (tool, id) => {
        expect(isOffloadKey(offloadKey(tool, id))).toBe(true);
      }),
    );
    expect(offloadKey("fetch logs/v2", "call.1/../x")).toMatch(/^fetch_logs_v2-call_1____x-[0-9a-f]{16}$/);
    expect(offloadKey("t", "")).not.toBe(offloadKey("t", ""));
    // Ids a model reuses, or that reduce to the same text, still give every result its own key.
    const long = "x".repeat(100);
    const ids = ["call_0", "call_0", "call.1", "call:1", `a${long}`, `b${long}`];
    const keys = ids.map((id) => offloadKey("fetch", id));
    expect(new Set(keys).size).toBe(ids.length);
    expect(isOffloadKey("../etc/passwd")).toBe(false);
  });
});

describe("scopeNameForThread", () => {
  it("gives distinct threads distinct folder and namespace names, safe everywhere", () => {
    const dir = resolve("/srv/offload");
    fc.assert(
      fc.property(keyArb, keyArb, (a, b) => {
        const name = scopeNameForThread(a);
        expect(name).toMatch(/^thread-[a-z0-9_%A-F-]*$/);
        expect(name.length).toBeLessThanOrEqual(200);
        expect(dirname(join(dir, name))).toBe(dir);
        expect(name).not.toBe(scopeNameForThread(undefined));
        if (a !== b) expect(name).not.toBe(scopeNameForThread(b));
      }),
      { numRuns: 1000 },
    );
  });
});
