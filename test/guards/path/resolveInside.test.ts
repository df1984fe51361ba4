import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveCanonical, resolveInside } from "../../../src/guards/path/resolveInside.js";
import { attacks, legitimate } from "./pathCorpus.js";
import { makePathTree, type PathTree } from "./pathTree.js";

const tree: PathTree = makePathTree();
afterAll(() => tree.cleanup());

const check = (input: unknown, roots = [tree.data]) => resolveInside(roots, input, { baseDir: tree.data });

describe("resolveInside: the corpora on a real tree with symlinks", () => {
  const attackList = attacks(tree);
  const legitList = legitimate(tree);

  it("has a few hundred attacks and over a hundred legitimate paths", () => {
    expect(attackList.length).toBeGreaterThanOrEqual(250);
    expect(legitList.length).toBeGreaterThanOrEqual(120);
  });

  it("refuses every attack (0 escapes), with the violation pinned where the corpus names one", () => {
    const escapes = attackList.filter((attack) => check(attack.path).ok);
    expect(escapes.map((a) => `${a.why}: ${JSON.stringify(a.path)}`)).toEqual([]);
    const wrongViolation = attackList.filter((attack) => {
      const result = check(attack.path);
      return attack.violation !== undefined && !result.ok && result.violation !== attack.violation;
    });
    expect(wrongViolation.map((a) => `${a.why}: ${JSON.stringify(check(a.path))}`)).toEqual([]);
  });

  it("allows every legitimate path (0 refused) and returns its canonical path where pinned", () => {
    const refused = legitList.filter((entry) => !check(entry.path).ok);
    expect(refused.map((e) => `${e.why}: ${JSON.stringify(e.path)} -> ${JSON.stringify(check(e.path))}`)).toEqual([]);
    for (const entry of legitList.filter((e) => e.real !== undefined)) {
      expect(check(entry.path), entry.why).toMatchObject({ ok: true, path: entry.real, root: tree.data });
    }
  });
});

describe("resolveInside: readings", () => {
  it("names the reading that leaves the root", () => {
    expect(check(" ../secret/passwd")).toMatchObject({
      ok: false,
      violation: "other_reading",
      reading: { text: "../secret/passwd", steps: ["trimmed"] },
    });
    expect(check("\uff0e\uff0e/secret")).toMatchObject({
      ok: false,
      violation: "other_reading",
      reading: { text: "../secret", steps: ["nfkc"] },
    });
    expect(check("~postgres/.pgpass")).toMatchObject({
      ok: false,
      violation: "other_reading",
      reading: { text: "/var/lib/postgresql/.pgpass", steps: ["home"] },
    });
  });

  it("does not expand ~name to a sibling of our own home", () => {
    const homes = { home: "/home/ann", userHome: (name: string) => (name === "bob" ? "/srv/bob" : undefined) };
    const inHome = (p: string) => resolveInside(["/home"], p, { baseDir: "/home/ann", homes });
    expect(inHome("~bob/x")).toMatchObject({ ok: false, violation: "other_reading", reading: { text: "/srv/bob/x" } });
    expect(inHome("~carol/x")).toMatchObject({ ok: true, path: "/home/ann/~carol/x" });
  });

  it("sees .. after an in-root symlink both ways, for reads and for writes", () => {
    expect(check("current/../../outside/secret.txt")).toMatchObject({ ok: false, violation: "parent_after_symlink" });
    expect(check("current/../../outside/brand-new.txt")).toMatchObject({
      ok: false,
      violation: "parent_after_symlink",
    });
    expect(check("current/../v1/app.txt")).toMatchObject({ ok: true, path: join(tree.data, "v1", "app.txt") });
  });

  it("in virtual mode reads an absolute path below the base, never on the host", () => {
    const virtual = (p: string) => resolveInside([tree.data], p, { baseDir: tree.data, virtualPaths: true });
    expect(virtual("/docs/report..final.md")).toMatchObject({
      ok: true,
      path: join(tree.data, "docs", "report..final.md"),
    });
    expect(virtual("/")).toMatchObject({ ok: true, path: tree.data });
    expect(virtual("/../secret/passwd").ok).toBe(false);
    expect(virtual("/link-out/passwd")).toMatchObject({ ok: false, violation: "through_symlink" });
  });
});

describe("resolveCanonical: only the reading a rewrite hands over", () => {
  it("judges the path as written and ignores readings the rewrite makes moot", () => {
    const canonical = (p: string) => resolveCanonical([tree.data], p, { baseDir: tree.data });
    expect(canonical("~backup/x")).toMatchObject({ ok: true, path: join(tree.data, "~backup", "x") });
    expect(canonical(" ../secret/passwd")).toMatchObject({
      ok: true,
      path: join(tree.data, " ..", "secret", "passwd"),
    });
    expect(canonical("current/../../outside/secret.txt")).toMatchObject({
      ok: false,
      violation: "parent_after_symlink",
    });
    expect(canonical("link-out/passwd")).toMatchObject({ ok: false, violation: "through_symlink" });
  });
});

describe("resolveInside: roots", () => {
  it("accepts any of several roots and reports which one", () => {
    expect(check(join(tree.other, "notes.md"), [tree.data, tree.other])).toMatchObject({ ok: true, root: tree.other });
    expect(check(join(tree.other, "notes.md"), [tree.data]).ok).toBe(false);
  });

  it("resolves a root given through a symlink to its real directory", () => {
    const viaLink = join(tree.data, "link-inside");
    expect(check(join(tree.data, "docs", "report..final.md"), [viaLink])).toMatchObject({
      ok: true,
      root: join(tree.data, "docs"),
    });
    expect(check(join(viaLink, "report..final.md"), [viaLink])).toMatchObject({
      ok: true,
      path: join(tree.data, "docs", "report..final.md"),
    });
    expect(check(join(tree.data, "src", "index.ts"), [viaLink]).ok).toBe(false);
  });

  it("lets `..` stay inside a root and base directory given through a symlink", () => {
    const viaLink = join(tree.data, "link-inside");
    for (const input of ["new/../report..final.md", join(viaLink, "new", "..", "report..final.md")]) {
      expect(resolveInside([viaLink], input, { baseDir: viaLink }), input).toMatchObject({
        ok: true,
        path: join(tree.data, "docs", "report..final.md"),
      });
    }
    expect(resolveInside([viaLink], "new/../../src/index.ts", { baseDir: viaLink }).ok).toBe(false);
  });

  it("allows ~ only when the home directory is inside a root", () => {
    expect(resolveInside([homedir()], "~/anything.txt", { baseDir: homedir() })).toMatchObject({
      ok: true,
      path: join(homedir(), "~", "anything.txt"),
    });
    expect(resolveInside([homedir()], "~/anything.txt", { baseDir: tree.data }).ok).toBe(false);
  });

  it("refuses a value that is not a string", () => {
    expect(check(42)).toMatchObject({ ok: false, violation: "not_a_string" });
  });
});
