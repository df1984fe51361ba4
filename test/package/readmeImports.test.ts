import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/** Every import the README and docs/ show resolves: each name it takes from a package entry is exported there. */

const README = [
  "README.md",
  ...readdirSync(new URL("../../docs", import.meta.url), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
]
  .map((page) => readFileSync(new URL(`../../${page}`, import.meta.url), "utf8"))
  .join("\n");
const ENTRIES: Record<string, () => Promise<Record<string, unknown>>> = {
  "harness-kit": () => import("../../src/index.js"),
  "harness-kit/node": () => import("../../src/node.js"),
  "harness-kit/observe": () => import("../../src/observe.js"),
  "harness-kit/testing": () => import("../../src/testing/index.js"),
};

function readmeImports(): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const match of README.matchAll(/import\s*\{([^}]+)\}\s*from\s*"(harness-kit[^"]*)"/g)) {
    for (const name of match[1]!
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean)) {
      if (!name.startsWith("type ")) found.push([match[2]!, name]);
    }
  }
  return found;
}

describe("the README's imports", () => {
  it("include decodeEnvelopePayload from harness-kit/observe", () => {
    expect(readmeImports()).toContainEqual(["harness-kit/observe", "decodeEnvelopePayload"]);
  });

  it.each(readmeImports())("%s exports %s", async (entry, name) => {
    const exported = await ENTRIES[entry]!();
    expect(exported[name], `${name} from "${entry}"`).toBeDefined();
  });
});
