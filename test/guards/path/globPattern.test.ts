import { describe, expect, it } from "vitest";
import { patternPaths } from "../../../src/guards/path/globPattern.js";

const paths = (pattern: string) => {
  const result = patternPaths(pattern);
  return result.ok ? result.paths.sort() : result.problem;
};

describe("patternPaths", () => {
  it("keeps the literal parts and the ordinary wildcards of a pattern", () => {
    expect(paths("src/**/*.ts")).toEqual(["src/**/*.ts"]);
    expect(paths("../outside/*")).toEqual(["../outside/*"]);
    expect(paths("docs/[...slug].tsx")).toEqual(["docs/[...slug].tsx"]);
    expect(paths("**/.env*")).toEqual(["**/.env*"]);
  });

  it("expands brace alternatives, so one of them cannot hide a parent step", () => {
    expect(paths("**/*.{ts,tsx}")).toEqual(["**/*.ts", "**/*.tsx"]);
    expect(paths("{..,src}/*")).toEqual(["../*", "src/*"]);
    expect(paths("{src,{..,lib}}/x")).toEqual(["../x", "lib/x", "src/x"]);
    expect(paths("a/{b,c}/{d,e}")).toHaveLength(4);
  });

  it("reads ranges by what they can yield", () => {
    expect(paths("file{1..3}.txt")).toEqual(["file0.txt"]);
    expect(paths("{a..c}/x")).toEqual(["a/x"]);
    expect(paths("{-..0}{-..0}/x")).toEqual(["../x"]);
  });

  it("undoes glob escapes, and also reads backslashes as separators", () => {
    expect(paths("\\.\\./secret/*")).toEqual(["../secret/*", "/././secret/*"]);
    expect(paths("..\\secret\\*")).toEqual(["../secret/*", "..secret*"]);
  });

  it("reads a wildcard component that could match .. as a parent step", () => {
    expect(paths(".*/secret")).toEqual(["../secret"]);
    expect(paths("..?/x")).toEqual(["..?/x"]);
    expect(paths(".[.]/x")).toEqual(["../x"]);
    expect(paths(".?/x")).toEqual(["../x"]);
    expect(paths(".@(.)/x")).toEqual(["../x"]);
    // readdir never lists . or ..: a component not starting with a dot never matches them
    expect(paths("*/x")).toEqual(["*/x"]);
    expect(paths("@(..)/x")).toEqual(["@(..)/x"]);
    expect(paths(".env*")).toEqual([".env*"]);
  });

  it("gives up on patterns with too many alternatives", () => {
    expect(paths("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")).toBe("pattern_too_complex");
    expect(paths("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")).toHaveLength(256);
  });
});
