import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  generatedPages,
  guardFolders,
  h2Headings,
  layoutProblems,
  optionsSchemaOf,
  optionsTable,
  pageOf,
  ROOT,
  SECTIONS,
  SPEC_MARKERS,
  specTable,
} from "../../scripts/guardDocs.js";
import { toolOutputSpec } from "../../src/guards/output/spec.js";

/** Each guard's page (docs/guards/<g>.md) against its options schema, and every local link of the docs. */

/** README.md and every page under docs/, as paths from the repository's root. */
function markdownPages(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? under(join(dir, entry.name)) : entry.name.endsWith(".md") ? [join(dir, entry.name)] : [],
    );
  return ["README.md", ...under("docs")];
}

describe("the guard pages", () => {
  it("every guard folder under src/guards/ has a page", () => {
    const folders = guardFolders();
    expect(folders.length).toBeGreaterThanOrEqual(10);
    expect(folders.filter((guard) => !existsSync(pageOf(guard)))).toEqual([]);
  });

  it.each(guardFolders())("docs/guards/%s.md holds the options table its schema generates", async (guard) => {
    const page = readFileSync(pageOf(guard), "utf8");
    const generated = (await generatedPages()).find((p) => p.guard === guard)!;
    // `npx tsx scripts/guardDocs.ts` rewrites it
    expect(page).toBe(generated.text);
  });

  it.each(guardFolders())("the %s table has a row, a type and a description for every field", async (guard) => {
    const schema = await optionsSchemaOf(guard);
    const rows = optionsTable(schema).split("\n").slice(2);
    expect(rows.map((row) => /^\| `(\w+)` \|/.exec(row)?.[1]).sort()).toEqual(Object.keys(schema.shape).sort());
    for (const row of rows) {
      const [, name, type, , description] = row.split(/ \| |^\| | \|$/);
      expect(type, `${guard}.${name}`).toMatch(/^`.+`$/);
      expect(description?.trim().length, `${guard}.${name} has no .describe()`).toBeGreaterThan(0);
    }
  });
  it.each(guardFolders())("docs/guards/%s.md has the six sections, in order, and no other H2", (guard) => {
    const page = readFileSync(pageOf(guard), "utf8");
    expect(layoutProblems(page, guard)).toEqual([]);
    expect(h2Headings(page)).toEqual([...SECTIONS]);
  });

  it("a page with a section missing, out of order, another H2 or its table elsewhere is refused", () => {
    const page = readFileSync(pageOf("loop"), "utf8");
    expect(layoutProblems(page.replace("## Limits\n", ""), "loop")).toHaveLength(1);
    expect(
      layoutProblems(
        page.replace("## Signals\n", "## Order\n").replace(/## Order\n(?![\s\S]*## Order\n)/, "## Signals\n"),
        "loop",
      ),
    ).toHaveLength(1);
    expect(layoutProblems(page.replace("## Limits\n", "## Notes\n\n## Limits\n"), "loop")).toHaveLength(1);
    expect(layoutProblems(page.replace("## Usage\n", "## Usage\n\n```ts\n## Not a heading\n```\n"), "loop")).toEqual(
      [],
    );
    const moved = page
      .replace("## Options\n", "## Options\n\n## What the model reads\n")
      .replace(/## What the model reads\n(?![\s\S]*## What the model reads\n)/, "");
    expect(layoutProblems(moved, "loop")).toContainEqual(expect.stringContaining("<!-- options:begin --> is under"));
  });

  it("the output page's spec table is the one toolOutputSpec generates, under Options", () => {
    const page = readFileSync(pageOf("output"), "utf8");
    const table = page.slice(
      page.indexOf(SPEC_MARKERS.begin) + SPEC_MARKERS.begin.length,
      page.indexOf(SPEC_MARKERS.end),
    );
    expect(table.trim()).toBe(specTable());
    const outsideOptions = page
      .replace(/### The spec of a tool[\s\S]*?<!-- spec:end -->\n/, "")
      .replace("## Limits\n", (limits) => `${limits}\n${SPEC_MARKERS.begin}\n${SPEC_MARKERS.end}\n`);
    expect(layoutProblems(outsideOptions, "output")).toContainEqual(expect.stringContaining(SPEC_MARKERS.begin));
    const rows = table.trim().split("\n").slice(2);
    expect(rows.map((row) => /^\| `(\w+)` \|/.exec(row)?.[1])).toEqual(Object.keys(toolOutputSpec.shape));
    for (const row of rows) expect(row.split(" | ")[3]?.trim().length, row).toBeGreaterThan(0);
    // a field's description changed in the schema no longer matches the page
    const changed = toolOutputSpec.safeExtend({ maxChars: z.number().optional().describe("something else") });
    expect(specTable(changed)).not.toBe(table.trim());
  });

  it("the README links every guard's page", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(guardFolders().filter((guard) => !readme.includes(`](docs/guards/${guard}.md)`))).toEqual([]);
  });
});

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(page: string): string[] {
  const text = readFileSync(join(ROOT, page), "utf8").replace(/```[\s\S]*?```/g, "");
  return [...text.matchAll(/^#+ (.+)$/gm)].map((m) =>
    m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\w\- ]/g, "")
      .replace(/ /g, "-"),
  );
}

describe("local links of README.md and docs/", () => {
  it.each(markdownPages())("every link of %s leads to a file that exists", (page) => {
    const text = readFileSync(join(ROOT, page), "utf8").replace(/```[\s\S]*?```/g, "");
    const broken = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith("#"))
      .filter((target) => !existsSync(join(ROOT, dirname(page), target.split("#")[0]!)));
    expect(broken, relative(ROOT, join(ROOT, page))).toEqual([]);
  });

  it.each(markdownPages())("every anchor a link of %s names is a heading of its page", (page) => {
    const text = readFileSync(join(ROOT, page), "utf8").replace(/```[\s\S]*?```/g, "");
    const broken = [...text.matchAll(/\]\(([^)\s]*#[^)\s]+)\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^[a-z]+:/.test(target))
      .filter((target) => {
        const [file, anchor] = target.split("#") as [string, string];
        const linked = file === "" ? page : relative(ROOT, join(ROOT, dirname(page), file));
        return linked.endsWith(".md") && !anchorsOf(linked).includes(anchor);
      });
    expect(broken, page).toEqual([]);
  });
});
