import { RE2JS } from "re2js";

/**
 * Patterns in rules run on RE2's automata (re2js): time linear in the text whatever the pattern,
 * so a rule cannot hang the agent on a crafted argument.
 */

/** Largest RE2 program accepted for a rule's pattern. */
const MAX_PROGRAM_SIZE = 2000;

export type TextTest = (text: string) => boolean;

/** A search for an RE2 pattern anywhere in the text; throws a one-line reason for a bad pattern. */
export function compileSearch(pattern: string): TextTest {
  const re = compileRe2(pattern);
  return (text) => re.test(text);
}

/** A whole-name test for tool globs: exact names, `*` for any run of characters. */
export function compileToolPattern(patterns: string | readonly string[]): TextTest {
  const list = typeof patterns === "string" ? [patterns] : patterns;
  const exact = new Set(list.filter((p) => !p.includes("*")));
  const globs = list.filter((p) => p.includes("*")).map((p) => compileRe2(p.split("*").map(RE2JS.quote).join(".*")));
  if (globs.length === 0) return (name) => exact.has(name);
  return (name) => exact.has(name) || globs.some((re) => re.testExact(name));
}

function compileRe2(pattern: string): RE2JS {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (error) {
    throw new Error(
      `is not an RE2 pattern (${error instanceof Error ? error.message.split("\n", 1)[0] : String(error)})`,
    );
  }
  if (re.programSize() > MAX_PROGRAM_SIZE)
    throw new Error(`is too large a pattern (program size ${re.programSize()}, at most ${MAX_PROGRAM_SIZE})`);
  return re;
}
