import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pathForms, type PathForms } from "../../../src/guards/path/pathForms.js";
import { decodePercentOnce, hasOverlongEscape } from "../../../src/guards/path/percentDecoding.js";

const homes = { home: "/home/ann", userHome: (name: string) => ({ bob: "/srv/bob", root: "/root" })[name] };
const texts = (forms: PathForms) => (forms.ok ? forms.readings.map((r) => r.text) : forms.problem);

describe("pathForms", () => {
  it("reads a path every way a tool might", () => {
    expect(texts(pathForms("..%252fetc", { platform: "linux", homes }))).toEqual(["..%252fetc", "..%2fetc", "../etc"]);
    expect(texts(pathForms("~/notes", { platform: "linux", homes }))).toEqual(["~/notes", "/home/ann/notes"]);
    expect(texts(pathForms("~bob/x", { platform: "linux", homes }))).toEqual(["~bob/x", "/srv/bob/x"]);
    expect(texts(pathForms("~$report.docx", { platform: "linux", homes }))).toEqual(["~$report.docx"]);
    expect(texts(pathForms("a\\..\\..\\b", { platform: "linux", homes }))).toEqual(["a\\..\\..\\b", "a/../../b"]);
    expect(texts(pathForms("file:///srv/a%20b.txt", { platform: "linux", homes }))).toEqual([
      "/srv/a b.txt",
      "file:///srv/a%20b.txt",
      "file:///srv/a b.txt",
    ]);
  });

  it("records the steps that lead to each reading", () => {
    const forms = pathForms(" %EF%BC%8E%EF%BC%8E/x", { platform: "linux", homes });
    expect(forms.ok && forms.readings.find((r) => r.text === "../x")?.steps).toEqual([
      "trimmed",
      "percent_decoded",
      "nfkc",
    ]);
  });

  it("does not expand ~name for a user that does not exist: a folder named ~old is a folder", () => {
    expect(texts(pathForms("~old/notes.txt", { platform: "linux", homes }))).toEqual(["~old/notes.txt"]);
    // ~name runs to the first separator, as expanduser reads it: no user is called "bob.txt"
    expect(texts(pathForms("~bob.txt", { platform: "linux", homes }))).toEqual(["~bob.txt"]);
  });

  it("decodes four rounds of encoding, past a stray % and a truncated UTF-8 escape", () => {
    expect(texts(pathForms("%2525252e%2525252e/x", { platform: "linux", homes }))).toContain("../x");
    expect(texts(pathForms("%2e%2e/x%", { platform: "linux", homes }))).toContain("../x%");
    expect(texts(pathForms("%2e%2e/x%E2%82", { platform: "linux", homes }))).toContain("../x\ufffd");
  });

  it("normalises lookalikes and trims whitespace", () => {
    for (const lookalike of ["\uff0e\uff0e/x", "\u2025/x", "\u2024\u2024/x", "..\uff0fx", "\ufe30/x"]) {
      expect(texts(pathForms(lookalike, { platform: "linux", homes })), lookalike).toContain("../x");
    }
    for (const padded of [" ../x", "../x ", "\t\n../x", "\u00a0../x", "\u3000../x", "\ufeff../x"]) {
      expect(texts(pathForms(padded, { platform: "linux", homes })), JSON.stringify(padded)).toContain("../x");
    }
  });

  it("refuses what no tool should get", () => {
    expect(pathForms("a\0b")).toEqual({ ok: false, problem: "nul_byte" });
    expect(pathForms("a%00b")).toEqual({ ok: false, problem: "nul_byte" });
    expect(pathForms("a%252500b")).toEqual({ ok: false, problem: "nul_byte" });
    expect(pathForms("file:///a%00b")).toEqual({ ok: false, problem: "nul_byte" });
    expect(pathForms("%c0%ae%c0%ae/x")).toEqual({ ok: false, problem: "overlong_utf8" });
    expect(pathForms(["a"])).toEqual({ ok: false, problem: "not_a_string" });
    expect(pathForms("\\\\?\\C:\\x", { platform: "win32" })).toEqual({ ok: false, problem: "device_path" });
    expect(pathForms("//./pipe/x", { platform: "win32" })).toEqual({ ok: false, problem: "device_path" });
  });

  it("on POSIX refuses Windows drive and UNC forms; on Windows reads them as paths", () => {
    for (const windowsPath of ["C:\\Windows", "c:/x", "C%3A%5CWindows", "\\\\server\\share"]) {
      expect(pathForms(windowsPath, { platform: "linux", homes })).toEqual({
        ok: false,
        problem: "foreign_windows_path",
      });
    }
    expect(
      pathForms("C:\\Windows", { platform: "win32", homes: { home: "C:\\Users\\ann", userHome: () => undefined } }),
    ).toMatchObject({ ok: true, readings: [{ text: "C:\\Windows" }] });
    // a colon after one letter, without a separator, is a plain name on POSIX
    expect(texts(pathForms("c:notes.txt", { platform: "linux", homes }))).toEqual(["c:notes.txt"]);
  });

  it("on Windows turns a file URL into a drive path", () => {
    expect(pathForms("file:///C:/Users/ann/a.txt", { platform: "win32", homes })).toMatchObject({
      ok: true,
      readings: [{ text: "C:\\Users\\ann\\a.txt" }, { text: "file:///C:/Users/ann/a.txt" }],
    });
  });

  it("keeps the number of readings bounded, whatever the text", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("%25", "%2e", "%", " ", "\uff0e", "\\", "~", "/", "..", "a", "%c3", "%a9"), {
          maxLength: 30,
        }),
        (parts) => {
          const forms = pathForms(parts.join(""), { platform: "linux", homes });
          if (forms.ok) expect(forms.readings.length).toBeLessThanOrEqual(64);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("decodePercentOnce", () => {
  it("agrees with decodeURIComponent wherever that succeeds", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 20 }), fc.boolean(), (text, whole) => {
        const encoded = whole ? encodeURIComponent(text) : encodeURI(text);
        expect(decodePercentOnce(encoded)).toBe(decodeURIComponent(encoded));
      }),
      { numRuns: 500 },
    );
  });

  it("goes on where decodeURIComponent throws", () => {
    expect(() => decodeURIComponent("%2e%2e/%zz")).toThrow();
    expect(decodePercentOnce("%2e%2e/%zz")).toBe("../%zz");
    expect(decodePercentOnce("100%")).toBe("100%");
    expect(decodePercentOnce("%E2%82%2e")).toBe("\ufffd.");
    expect(decodePercentOnce("%%32%65")).toBe("%2e");
  });

  it("finds overlong UTF-8 escapes only", () => {
    expect(hasOverlongEscape("%c0%ae")).toBe(true);
    expect(hasOverlongEscape("%C1%9C")).toBe(true);
    expect(hasOverlongEscape("%e0%80%ae")).toBe(true);
    expect(hasOverlongEscape("%f0%80%80%ae")).toBe(true);
    expect(hasOverlongEscape("%c3%a9%e2%82%ac%f0%9f%93%81")).toBe(false);
  });
});
