import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { expect, it } from "vitest";

// A file of a few lines that one other file imports is part of that file: merge it there. What
// stays small on purpose: an index or entry, a guard's options.ts (its schema, read by the docs
// script) and texts.ts (what the model reads), and a file an index re-exports (a public seam).

const SMALL = 25;
const root = join(import.meta.dirname, "..", "..");
const sourceFiles = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );

const files = sourceFiles("src");
const importers = new Map<string, string[]>();
for (const file of files)
  for (const [, specifier] of readFileSync(join(root, file), "utf8").matchAll(/from\s+"(\.\.?\/[^"]+)"/g)) {
    const target = relative(root, resolve(root, dirname(file), specifier!)).replace(/\.js$/, ".ts");
    importers.set(target, [...(importers.get(target) ?? []), file]);
  }

const isIndex = (file: string) => /(^|\/)index\.ts$/.test(file) || /^src\/(node|observe|cli\/main)\.ts$/.test(file);
const keptSmall = (file: string) => isIndex(file) || /\/(options|texts)\.ts$/.test(file);

it(`merges each file under ${SMALL} lines into its only caller, unless it is kept small on purpose`, () => {
  const mergeable = files.filter((file) => {
    const lines = readFileSync(join(root, file), "utf8").trimEnd().split("\n").length;
    const callers = importers.get(file) ?? [];
    return lines < SMALL && callers.length === 1 && !keptSmall(file) && !isIndex(callers[0]!);
  });
  expect(mergeable).toEqual([]);
});
