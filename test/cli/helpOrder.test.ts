import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { USAGE } from "../../src/cli/cli.js";
import { replaySetupFor } from "../../src/replay/config.js";
import { recommendedGuards } from "../../src/index.js";

/** `--help` and the README name the replayed guards in the order replay and recommendedGuards use. */

const JUDGES = ["RunawayGuardMiddleware", "ProgressAwareLoopGuardMiddleware", "LoopGuardMiddleware"];
const README = ["../../README.md", "../../docs/cli.md"]
  .map((page) => readFileSync(new URL(page, import.meta.url), "utf8"))
  .join("\n");

/** The middleware names of a stack, composed stacks opened up, outermost first. */
function namesIn(middleware: readonly unknown[]): string[] {
  return middleware.flatMap((m) => {
    const { name, members } = m as { name: string; members?: readonly unknown[] };
    return members ? namesIn(members) : [name];
  });
}

const guardNamesIn = (text: string) => [...text.matchAll(/\b(\w+Middleware)\b/g)].map((m) => m[1]!);
const inOrder = (names: readonly string[], order: readonly string[]) =>
  names.filter((n) => order.includes(n)).map((n) => order.indexOf(n));

describe("the replay order, as the help and README tell it", () => {
  const order = namesIn(recommendedGuards().agent).filter((name) => JUDGES.includes(name));

  it("is recommendedGuards' order, which replay uses without --config", () => {
    expect(order).toHaveLength(JUDGES.length);
    expect(replaySetupFor({}).stack.map(({ guard }) => guard.name)).toEqual(order);
  });

  it("--help's default names the same guards in that order", () => {
    const line = /\(default: ([^)]*?),\s+in recommendedGuards' order/.exec(USAGE)?.[1];
    expect(line).toBeDefined();
    expect(guardNamesIn(line!)).toEqual(order);
  });

  it("every --config example in --help, the README and config.ts lists its guards in that order", () => {
    const examples = [
      USAGE,
      README,
      readFileSync(new URL("../../src/replay/config.ts", import.meta.url), "utf8"),
    ].flatMap((text) => [...text.matchAll(/\{"guards": \{[\s\S]*?\}\}\}?/g)].map((m) => m[0]));
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const example of examples) {
      const places = inOrder(guardNamesIn(example), order);
      expect(places, example).toEqual([...places].sort((a, b) => a - b));
    }
  });
});
