import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// The Node support policy is stated in three places (engines, the README, the matrix script's
// default versions) and enacted in a fourth (the better-sqlite3 stand-in): they must agree.
const root = join(import.meta.dirname, "..", "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const require = createRequire(join(root, "package.json"));

describe("Node support policy", () => {
  const engines = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node;
  const readme = read("README.md");

  it("engines and the README's requirement line name the same oldest Node", () => {
    const oldest = /^>=(\d+)$/.exec(engines)?.[1];
    expect(oldest, `engines.node is "${engines}"`).toBeDefined();
    expect(readme).toContain(`Requires Node ${oldest} or later`);
  });

  it("the README says tested on exactly the versions npm run test:node-matrix runs by default", () => {
    const tested = /Requires Node \d+ or later; tested on ([\d, and]+)\./.exec(readme)?.[1];
    const matrix = /VERSIONS=\(([\d ]+)\)/.exec(read("scripts/node-matrix.sh"))?.[1];
    expect(tested?.split(/, | and /)).toEqual(matrix?.split(" "));
    expect(tested?.split(/, | and /)[0]).toBe(/^>=(\d+)$/.exec(engines)?.[1]);
  });

  it("this Node gets the better-sqlite3 the README prescribes for it: 13 with Node-API 10, else 12", () => {
    const loaded: unknown = require("better-sqlite3");
    const major = Number(process.versions.napi) >= 10 ? 13 : 12;
    expect(loaded).toBe(require(`better-sqlite3-${major}`));
    expect((require(`better-sqlite3-${major}/package.json`) as { version: string }).version.split(".")[0]).toBe(
      String(major),
    );
  });
});
