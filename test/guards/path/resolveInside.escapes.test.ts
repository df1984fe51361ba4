import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { resolveInside } from "../../../src/guards/path/resolveInside.js";
import { attacks, legitimate } from "./pathCorpus.js";
import { makePathTree } from "./pathTree.js";
import { readLeaks, TOOL_READERS, writeProbe } from "./toolReaders.js";

const tree = makePathTree();
afterAll(() => tree.cleanup());

/** Every way the tools of toolReaders.ts could leak or write outside through `argument`. */
function escapesThrough(argument: string): string[] {
  const before = tree.outsideSnapshot().join("\n");
  const found: string[] = [];
  for (const reader of TOOL_READERS) {
    const opened = reader.open(argument, tree.data);
    if (opened === undefined) continue;
    const leak = readLeaks(opened, tree.data);
    if (leak) found.push(`${reader.name} read ${JSON.stringify(leak.slice(0, 40))}`);
    const wrote = writeProbe(opened, tree.data);
    if (wrote) found.push(`${reader.name}: ${wrote}`);
    if (tree.outsideSnapshot().join("\n") !== before) {
      found.push(`${reader.name} wrote outside`);
      break;
    }
  }
  return found;
}

const allowed = (argument: string) => resolveInside([tree.data], argument, { baseDir: tree.data }).ok;

describe("what the guard allows, real tools cannot use to reach outside the root", () => {
  it("holds for the whole corpus: attacks refused, legitimate paths written and read inside only", () => {
    const corpus = [...attacks(tree), ...legitimate(tree)];
    const escapes = corpus
      .filter((entry) => allowed(entry.path))
      .flatMap((entry) => escapesThrough(entry.path).map((how) => `${JSON.stringify(entry.path)}: ${how}`));
    expect(escapes).toEqual([]);
  });

  it("holds for generated paths built from the tree's traps", () => {
    const parts = [
      "..",
      ".",
      "docs",
      "current",
      "releases",
      "v2",
      "link-out",
      "link-inside",
      "rel-in",
      "nested",
      "deep",
      "escape",
      "file-out",
      "dangling-out",
      "chain-1",
      "secret",
      "outside",
      "passwd",
      "data",
      "data-private",
      "x",
      "~",
      "~root",
      "~old",
      "%2e%2e",
      "%252e%252e",
      "%2e",
      "\uff0e\uff0e",
      "\u2025",
      "%E2%82",
      "%",
    ];
    const separator = fc.constantFrom("/", "/", "/", "\\", "%2f", "%252f", "\uff0f");
    const argument = fc
      .tuple(
        fc.constantFrom("", "", " ", "/", `${tree.data}/`, `${tree.top}/`, "~/", "file://"),
        fc.array(fc.tuple(fc.constantFrom(...parts), separator), { minLength: 1, maxLength: 6 }),
        fc.constantFrom("", "", " ", "%"),
      )
      .map(
        ([prefix, steps, suffix]) =>
          prefix + steps.map(([part, sep], i) => (i === 0 ? part : sep + part)).join("") + suffix,
      );
    let checked = 0;
    fc.assert(
      fc.property(argument, (p) => {
        if (!allowed(p)) return;
        checked++;
        expect(escapesThrough(p), JSON.stringify(p)).toEqual([]);
      }),
      { numRuns: Number(process.env.HK_PATH_RUNS ?? 600) },
    );
    expect(checked).toBeGreaterThan(30); // the property saw allowed paths, not only refusals
  });
});
