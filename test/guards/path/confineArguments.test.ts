import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { confineArguments, type ConfineOptions } from "../../../src/guards/path/confineArguments.js";
import { findPathArguments, replaceArguments, type ArgumentKind } from "../../../src/guards/path/pathArguments.js";
import { locationText } from "../../../src/guards/path/texts.js";
import { pathRefusalText } from "../../../src/guards/path/texts.js";
import { DEFAULT_PATH_ARGUMENTS, PATTERN_ARGUMENTS } from "../../../src/guards/path/PathGuardMiddleware.js";
import { makePathTree } from "./pathTree.js";

const tree = makePathTree();
afterAll(() => tree.cleanup());

const names = new Map<string, ArgumentKind>(
  DEFAULT_PATH_ARGUMENTS.map((n) => [n, PATTERN_ARGUMENTS.includes(n) ? "pattern" : "path"]),
);
const options = (overrides: Partial<ConfineOptions> = {}): ConfineOptions => ({
  roots: [tree.data],
  names,
  baseDir: tree.data,
  virtualPaths: false,
  rewrite: false,
  ...overrides,
});
const refusedAt = (args: unknown, overrides?: Partial<ConfineOptions>) => {
  const result = confineArguments(args, options(overrides));
  return result.ok ? undefined : locationText(result.refusal.at);
};

describe("findPathArguments", () => {
  it("finds path strings at any depth, each with the kind of the nearest listed key; a listed key's whole value, keys included", () => {
    const found = findPathArguments(
      {
        path: [["a", ["b"]]],
        options: { path: "c" },
        files: [{ src: "d", dest: "e", content: "../all-checked" }],
        pattern: "*.ts",
        limit: 3,
        content: "not a path",
      },
      names,
    );
    expect(found.ok && found.found.map((f) => [locationText(f.at), f.kind, f.value, f.isKey ?? false])).toEqual([
      ["path[0][0]", "path", "a", false],
      ["path[0][1][0]", "path", "b", false],
      ["options.path", "path", "c", false],
      ["files[0]", "path", "src", true],
      ["files[0]", "path", "dest", true],
      ["files[0]", "path", "content", true],
      ["files[0].src", "path", "d", false],
      ["files[0].dest", "path", "e", false],
      ["files[0].content", "path", "../all-checked", false],
      ["pattern", "pattern", "*.ts", false],
    ]);
  });

  it("gives a pattern the paths next to it as bases", () => {
    const found = findPathArguments({ pattern: "*.md", path: "docs" }, names);
    expect(found.ok && found.found.find((f) => f.kind === "pattern")?.siblings).toEqual(["docs"]);
  });

  it("refuses arguments nested too deeply to walk, and survives a cycle", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 100; i++) deep = { path: deep };
    expect(findPathArguments(deep, names)).toEqual({ ok: false, problem: "too_deep" });
    const cyclic: Record<string, unknown> = { path: "a" };
    cyclic.self = cyclic;
    expect(findPathArguments(cyclic, names)).toMatchObject({ ok: true, found: [{ value: "a" }] });
  });

  it("replaces values without touching the original", () => {
    const args = { files: [{ src: "a", dest: "b" }], n: 1 };
    expect(replaceArguments(args, [{ at: ["files", 0, "dest"], value: "B" }])).toEqual({
      files: [{ src: "a", dest: "B" }],
      n: 1,
    });
    expect(args.files[0]!.dest).toBe("b");
  });
});

describe("confineArguments", () => {
  it("refuses an escape wherever it is nested", () => {
    expect(refusedAt({ path: [["../x"]] })).toBe("path[0][0]");
    expect(refusedAt({ options: { path: "../x" } })).toBe("options.path");
    expect(refusedAt({ files: [{ src: "docs/a.md", dest: "link-out/a.md" }] })).toBe("files[0].dest");
    expect(refusedAt({ old_path: "docs/a.md", new_path: "current/../../outside/a.md" })).toBe("new_path");
    expect(refusedAt({ source: "docs/a.md", destination: "../a.md" })).toBe("destination");
    expect(refusedAt({ target_file: " ../secret/passwd" })).toBe("target_file");
    expect(refusedAt({ paths: ["docs/a.md", "src/index.ts"] })).toBeUndefined();
  });

  it("checks a listed argument all the way down, whatever keys its objects use", () => {
    const filesOnly = { names: new Map<string, ArgumentKind>([["files", "path"]]) };
    const refusal = (args: unknown) => {
      const result = confineArguments(args, options(filesOnly));
      return result.ok
        ? undefined
        : { at: locationText(result.refusal.at), value: result.refusal.value, isKey: result.refusal.isKey ?? false };
    };
    expect(refusal({ files: [{ src: "../outside/secret.txt", dest: "stolen.txt" }] })).toEqual({
      at: "files[0].src",
      value: "../outside/secret.txt",
      isKey: false,
    });
    expect(refusal({ files: [{ from: { path: "docs/a.md" }, to: { path: ["link-out/passwd"] } }] })).toEqual({
      at: "files[0].to.path[0]",
      value: "link-out/passwd",
      isKey: false,
    });
    expect(refusal({ files: { "../outside/secret.txt": "stolen.txt" } })).toEqual({
      at: "files",
      value: "../outside/secret.txt",
      isKey: true,
    });
    expect(refusal({ files: [{ src: "/etc/passwd", dest: "x" }] })).toEqual({
      at: "files[0].src",
      value: "/etc/passwd",
      isKey: false,
    });
    expect(
      refusal({ files: [{ src: "docs/a.md", dest: "copies/a.md", mode: 420, overwrite: true, note: null }] }),
    ).toBeUndefined();
    expect(refusal({ files: { "docs/a.md": "copies/a.md", "src/index.ts": ["copies/index.ts"] } })).toBeUndefined();
    expect(refusal({ files: [[{ src: "docs/report..final.md", dest: `${tree.data}/copies/b.md` }]] })).toBeUndefined();
    expect(refusal({ files: 3, other: "../outside/secret.txt" })).toBeUndefined();
  });

  it("never rewrites a key, and still refuses one that leaves the roots", () => {
    const filesOnly = { names: new Map<string, ArgumentKind>([["files", "path"]]), rewrite: true };
    expect(confineArguments({ files: { "current/app.txt": "copies/app.txt" } }, options(filesOnly))).toMatchObject({
      ok: true,
      args: { files: { "current/app.txt": join(tree.data, "copies", "app.txt") } },
    });
    expect(confineArguments({ files: { "link-out/passwd": "x" } }, options(filesOnly))).toMatchObject({
      ok: false,
      refusal: { isKey: true, violation: "through_symlink" },
    });
  });

  it("confines glob patterns by every path they reach, from the base and from the path next to them", () => {
    expect(refusedAt({ pattern: "../outside/*" })).toBe("pattern");
    expect(refusedAt({ pattern: "{src,..}/*" })).toBe("pattern");
    expect(refusedAt({ pattern: "link-out/*" })).toBe("pattern");
    expect(refusedAt({ pattern: "*", path: "nested/deep/escape" })).toBe("path");
    expect(refusedAt({ pattern: "../../*", path: "docs" })).toBe("pattern");
    expect(refusedAt({ pattern: "/etc/*" })).toBe("pattern");
    expect(refusedAt({ pattern: "**/*.{ts,md}", path: "docs" })).toBeUndefined();
    expect(refusedAt({ pattern: "**/.env*" })).toBeUndefined();
    expect(refusedAt({ pattern: "/**/*.md" }, { virtualPaths: true })).toBeUndefined();
  });

  it("with rewrite, hands over the canonical path and still refuses what its canonical form cannot fix", () => {
    const rewrite = (args: unknown) => confineArguments(args, options({ rewrite: true }));
    expect(rewrite({ path: "current/app.txt" })).toMatchObject({
      ok: true,
      args: { path: join(tree.data, "releases", "v2", "app.txt") },
    });
    expect(rewrite({ path: "~backup/x" })).toMatchObject({ ok: true, args: { path: join(tree.data, "~backup", "x") } });
    expect(rewrite({ files: [{ src: "link-inside/report..final.md" }] })).toMatchObject({
      ok: true,
      args: { files: [{ src: join(tree.data, "docs", "report..final.md") }] },
    });
    expect(rewrite({ path: "%2e%2e/secret/passwd" })).toMatchObject({
      ok: false,
      refusal: { violation: "other_reading" },
    });
    expect(rewrite({ path: "current/../../outside/secret.txt" })).toMatchObject({
      ok: false,
      refusal: { violation: "parent_after_symlink" },
    });
    expect(rewrite({ path: "link-out/passwd" })).toMatchObject({
      ok: false,
      refusal: { violation: "through_symlink" },
    });
  });
});

describe("pathRefusalText", () => {
  it("says which reading leaves the root and how to write the path instead", () => {
    const result = confineArguments({ options: { path: "\u2025/secret/passwd" } }, options());
    expect(!result.ok && pathRefusalText("read_file", result.refusal)).toBe(
      `read_file was not run: path "\u2025/secret/passwd" in "options.path" is not allowed because a tool that normalises lookalike Unicode characters would read it as "../secret/passwd", which is outside the allowed directories. Use a plain path inside ${tree.data}, written without percent-escapes, ~, surrounding spaces or lookalike characters.`,
    );
    const after = confineArguments({ path: "current/../../outside/secret.txt" }, options());
    expect(!after.ok && pathRefusalText("write_file", after.refusal)).toMatch(
      /follows a symbolic link.*written without "\.\."\.$/,
    );
  });

  it("names the place inside the argument, a key included", () => {
    const filesOnly = options({ names: new Map<string, ArgumentKind>([["files", "path"]]) });
    const nested = confineArguments({ files: [{ src: "../outside/secret.txt", dest: "stolen.txt" }] }, filesOnly);
    expect(!nested.ok && pathRefusalText("copy_files", nested.refusal)).toBe(
      `copy_files was not run: path "../outside/secret.txt" in "files[0].src" is not allowed because it resolves outside the allowed directories. Use a plain path inside ${tree.data}.`,
    );
    const key = confineArguments({ files: { "../outside/secret.txt": "stolen.txt" } }, filesOnly);
    expect(!key.ok && pathRefusalText("copy_files", key.refusal)).toMatch(
      /^copy_files was not run: path "\.\.\/outside\/secret\.txt" in a key of "files" is not allowed because/,
    );
  });

  it("quotes at most 200 characters of a path", () => {
    const result = confineArguments({ path: `../${"x".repeat(5000)}` }, options());
    expect(!result.ok && pathRefusalText("read_file", result.refusal).length).toBeLessThan(500);
  });
});
