import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// A guard's tests live in test/guards/<g>/, the folder of its source, src/guards/<g>/. A test file
// is named after the source file it tests (`plan.test.ts`, `ToolResultBudgetMiddleware.createAgent.test.ts`)
// or after the guard itself (`policy.page.test.ts`), so a folder, its class and its tests say one word.

const root = join(import.meta.dirname, "..", "..");
const folders = (path: string) =>
  readdirSync(join(root, path), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
const files = (path: string) =>
  readdirSync(join(root, path), { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);

const guards = folders("src/guards");

describe("tests mirror src/guards/", () => {
  it("has a test folder for each guard folder and nothing else", () => {
    expect(folders("test/guards")).toEqual(guards);
    expect(files("test/guards")).toEqual([]);
  });

  it.each(guards)("names every test in test/guards/%s/ after a source file of the guard or the guard", (guard) => {
    const sources = new Set(files(`src/guards/${guard}`).map((name) => name.replace(/\.ts$/, "")));
    const misnamed = files(`test/guards/${guard}`)
      .filter((name) => name.endsWith(".test.ts"))
      .filter((name) => {
        const subject = name.split(".")[0]!;
        return subject !== guard && !sources.has(subject);
      });
    expect(misnamed).toEqual([]);
  });

  it.each(guards)("keeps a test through a real createAgent graph beside the unit tests of %s", (guard) => {
    expect(files(`test/guards/${guard}`).some((name) => name.endsWith(".createAgent.test.ts"))).toBe(true);
  });
});
