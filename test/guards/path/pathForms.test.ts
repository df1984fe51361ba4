import { describe, expect, it } from "vitest";
import { pathForms } from "../../../src/guards/path/pathForms.js";

const home = "/home/ann";

describe("pathForms", () => {
  it("reads a path every way a tool might", () => {
    expect(pathForms("..%252fetc", { platform: "linux", home })).toEqual({ ok: true, forms: ["..%252fetc", "..%2fetc", "../etc"] });
    expect(pathForms("~/notes", { platform: "linux", home })).toEqual({ ok: true, forms: ["/home/ann/notes", "~/notes"] });
    expect(pathForms("~bob/x", { platform: "linux", home })).toEqual({ ok: true, forms: ["/home/bob/x", "~bob/x"] });
    expect(pathForms("~$report.docx", { platform: "linux", home })).toEqual({ ok: true, forms: ["~$report.docx"] });
    expect(pathForms("a\\..\\..\\b", { platform: "linux", home })).toEqual({ ok: true, forms: ["a\\..\\..\\b", "a/../../b"] });
    expect(pathForms("file:///srv/a%20b.txt", { platform: "linux", home })).toEqual({ ok: true, forms: ["/srv/a b.txt", "file:///srv/a%20b.txt", "file:///srv/a b.txt"] });
  });

  it("refuses what no tool should get", () => {
    expect(pathForms("a\0b")).toEqual({ ok: false, problem: "nul_byte" });
    expect(pathForms("a%00b")).toEqual({ ok: false, problem: "nul_byte" });
    expect(pathForms("file:///a%00b")).toEqual({ ok: false, problem: "nul_byte" });
    expect(pathForms("")).toEqual({ ok: false, problem: "empty" });
    expect(pathForms(["a"])).toEqual({ ok: false, problem: "not_a_string" });
    expect(pathForms("\\\\?\\C:\\x", { platform: "win32" })).toEqual({ ok: false, problem: "device_path" });
    expect(pathForms("//./pipe/x", { platform: "win32" })).toEqual({ ok: false, problem: "device_path" });
  });

  it("on POSIX refuses Windows drive and UNC forms; on Windows reads them as paths", () => {
    for (const windowsPath of ["C:\\Windows", "c:/x", "d:relative", "\\\\server\\share"]) {
      expect(pathForms(windowsPath, { platform: "linux" })).toEqual({ ok: false, problem: "foreign_windows_path" });
      expect(pathForms(windowsPath, { platform: "win32", home: "C:\\Users\\ann" })).toMatchObject({ ok: true, forms: [windowsPath] });
    }
  });

  it("on Windows turns a file URL into a drive path", () => {
    expect(pathForms("file:///C:/Users/ann/a.txt", { platform: "win32", home: "C:\\Users\\ann" })).toMatchObject({ ok: true, forms: ["C:\\Users\\ann\\a.txt", "file:///C:/Users/ann/a.txt"] });
  });
});
