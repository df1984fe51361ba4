import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { dirname, join, resolve } from "node:path";
import { fileNameForKey, scopeNameForThread } from "../../src/offload/fileNames.js";
import { createHash } from "node:crypto";
import { offloadDigestInput, offloadKey, isOffloadKey } from "../../src/offload/keys.js";

const keyArb = fc.oneof(
  fc.string({ unit: "binary", maxLength: 400 }),
  fc.constantFrom(
    "..",
    ".",
    "../../etc/passwd",
    "..\\..\\windows",
    "/abs/path",
    "a/b",
    "CON",
    "nul",
    "",
    "\u0000",
    "x".repeat(1000),
  ),
  fc
    .array(fc.constantFrom("..", "/", "\\", ".", "a", "%2e", "\u0000", "é"), { maxLength: 30 })
    .map((parts) => parts.join("")),
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
  const digest = (tool: string, id: string, content: string) =>
    createHash("sha256")
      .update(offloadDigestInput(tool, id, content))
      .digest("hex");

  it("makes safe keys that differ whenever the call id, tool or content differ", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 60 }),
        fc.string({ maxLength: 100 }),
        fc.string({ maxLength: 50 }),
        (tool, id, content) => {
          expect(isOffloadKey(offloadKey(tool, id, digest(tool, id, content)))).toBe(true);
        },
      ),
    );
    expect(offloadKey("fetch logs/v2", "call.1/../x", "0123456789abcdef99")).toBe(
      "fetch_logs_v2-call_1____x-0123456789abcdef",
    );
    expect(isOffloadKey("../etc/passwd")).toBe(false);
    // Ids a model reuses, or that reduce to the same text, still give every different result its own key.
    const long = "x".repeat(100);
    const calls = [
      ["call_0", "turn 1"],
      ["call_0", "turn 2"],
      ["call.1", "a"],
      ["call:1", "a"],
      [`a${long}`, "b"],
      [`b${long}`, "b"],
      ["c", "\ud800"],
      ["c", "\ufffd"],
    ] as const;
    const keys = calls.map(([id, content]) => offloadKey("fetch", id, digest("fetch", id, content)));
    expect(new Set(keys).size).toBe(calls.length);
    // The same result gets the same key: in another process, and in replay.
    expect(offloadKey("fetch", "call_0", digest("fetch", "call_0", "turn 1"))).toBe(keys[0]);
  });

  it("joins its inputs without ambiguity (property)", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.string(),
        fc.string(),
        fc.string(),
        fc.string(),
        (t1, i1, c1, t2, i2, c2) => {
          fc.pre(t1 !== t2 || i1 !== i2 || c1 !== c2);
          expect(offloadDigestInput(t1, i1, c1)).not.toBe(offloadDigestInput(t2, i2, c2));
        },
      ),
      { numRuns: 1000 },
    );
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
