import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/**
 * The README's install lines work before the package is on the registry: they build the tarball
 * with `npm pack` and install it under the file name `npm pack` writes for this version.
 * (test/package/packedProject.test.ts runs the README's examples against such a tarball.)
 */

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const PACKAGE = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  name: string;
  version: string;
};

function firstInstallBlock(): string {
  const section = README.slice(README.indexOf("## First five minutes"));
  const block = /```bash\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error("no bash block under First five minutes");
  return block[1]!;
}

describe("the README's install lines", () => {
  it("build the tarball with npm pack and install the file it writes for this version", () => {
    const block = firstInstallBlock();
    const tarball = `${PACKAGE.name}-${PACKAGE.version}.tgz`;
    expect(block).toMatch(/npm ci && npm pack/);
    expect(block).toContain(`npm install ./harness-kit/${tarball} langchain @langchain/core @langchain/langgraph`);
  });

  it("keep the registry line for when the package is published", () => {
    expect(README).toContain("`npm install harness-kit langchain @langchain/core @langchain/langgraph`");
    expect(firstInstallBlock()).not.toMatch(/^npm install harness-kit\b/m);
  });
});
