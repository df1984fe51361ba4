import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

// The docs cite tests as `test/<file>` or `test/<file>: "title"` (docs/langchain-facts.md pins each
// fact to one). A cited file that moved, or a title that changed, leaves a fact pinned to nothing.

const root = join(import.meta.dirname, "..", "..");
const pages = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? pages(join(dir, entry.name)) : entry.name.endsWith(".md") ? [join(dir, entry.name)] : [],
  );

/** Without backslashes: a title is quoted with \" in the docs and may hold \' in the test's source. */
const unescaped = (text: string) => text.replace(/\\/g, "");

it("every test the docs cite exists, with the title they quote", () => {
  const broken: string[] = [];
  for (const page of ["README.md", "bench/README.md", ...pages("docs")]) {
    const text = readFileSync(join(root, page), "utf8");
    for (const [, file, title] of text.matchAll(/`(test\/[\w./-]+\.ts)(?:: "((?:[^"\\]|\\.)+)")?/g)) {
      if (!existsSync(join(root, file!))) broken.push(`${page}: ${file} does not exist`);
      else if (title && !unescaped(readFileSync(join(root, file!), "utf8")).includes(unescaped(title)))
        broken.push(`${page}: ${file} has no test "${title}"`);
    }
  }
  expect(broken).toEqual([]);
});
