import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createMeasure } from "../../src/guards/budget/measure.js";
import { createRetrievalTool } from "../../src/guards/budget/retrievalTool.js";
import { MemoryOffloadStore } from "../../src/offload/MemoryOffloadStore.js";
import {
  compileLinePattern,
  isRefused,
  searchLines,
  MAX_PROGRAM_SIZE,
  type LinePattern,
} from "../../src/guards/budget/search.js";

/**
 * Issue 12: "(a+)+$ on 1.75 KB of stored text did not answer in 10 s". Every pattern the model
 * sends must answer in under 100 ms, on the text and on a large result.
 */

/** Patterns known to take exponential or huge polynomial time in backtracking engines, and big programs. */
const REDOS = [
  "(a+)+$",
  "(a|a)+$",
  "(a|aa)+$",
  "^(a+)+b",
  "(a*)*b",
  "(.*a){20}",
  "(.*.*.*.*.*.*a){50}",
  "(x+x+)+y",
  "^(\\w+\\s?)*$",
  "(\\w*\\W*){30}",
  "^(([a-z])+.)+[A-Z]([a-z])+$",
  "(.*){1,32000}[bc]",
  "((a{1,10}){1,10}){1,10}b",
  "(a?){1000}a{1000}",
  "(\\w*\\W*){999}",
  "\\pL{1000}",
  "[\\s\\S]*[\\s\\S]*[\\s\\S]*x",
  "(?:a|b|c|d|e|f|g|h|i|j)*z",
  "^(\\d+)*$",
  "(\\.\\d+)*\\.$",
  "(a)\\1+b",
  "(?=a+)+b",
  "a".repeat(5000),
];

/**
 * CPU time of the call, in ms: the figure that does not depend on how many other processes share
 * the cores (the test machine is shared); wall time is logged beside it.
 */
async function timed(run: () => Promise<unknown>): Promise<{ cpu: number; wall: number }> {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  await run();
  const used = process.cpuUsage(cpu);
  return { cpu: (used.user + used.system) / 1000, wall: performance.now() - wall };
}

describe("model-supplied patterns", () => {
  const store = new MemoryOffloadStore();
  const retrieval = createRetrievalTool(store, { limit: 20_000, measure: createMeasure("chars") });
  const texts: Record<string, string> = {
    "the issue's 1.75 KB": `${"a".repeat(1750)}!`,
    "one 1 MB line": `${"a".repeat(1_000_000)}!`,
    "a 5 MB log": Array.from({ length: 100_000 }, (_, i) => `${"a".repeat(40)} line ${i} ${"aaaa ".repeat(1)}!`).join(
      "\n",
    ),
  };

  for (const [name, text] of Object.entries(texts)) {
    it(`every pattern answers in under 100 ms on ${name}`, async () => {
      await store.put(name, text);
      await retrieval.invoke({ key: name, pattern: "warm up" });
      const times: Record<string, { cpu: number; wall: number }> = {};
      for (const pattern of REDOS) {
        let answer = "";
        times[pattern.slice(0, 40)] = await timed(async () => {
          answer = String(await retrieval.invoke({ key: name, pattern }));
        });
        expect(answer.length).toBeGreaterThan(0);
      }
      const slowestCpu = Math.max(...Object.values(times).map((t) => t.cpu));
      const slowestWall = Math.max(...Object.values(times).map((t) => t.wall));
      console.log(
        `${name}: slowest pattern ${slowestCpu.toFixed(1)} ms CPU, ${slowestWall.toFixed(1)} ms wall`,
        JSON.stringify(Object.fromEntries(Object.entries(times).map(([p, t]) => [p, Math.round(t.cpu)]))),
      );
      expect(slowestCpu).toBeLessThan(100);
    });
  }

  it("refuses a pattern whose program is too big, and says what to do", async () => {
    const refused = compileLinePattern("(\\w*\\W*){999}");
    expect(isRefused(refused)).toBe(true);
    expect((refused as { refused: string }).refused).toContain(`more than the ${MAX_PROGRAM_SIZE} allowed`);
    expect(isRefused(compileLinePattern("x".repeat(1001)))).toBe(true);
  });

  it("searches invalid RE2 (backreferences, lookaround) as plain text and says so", async () => {
    await store.put("plain", "one (a)\\1+b here\nnothing\n(?=a+)+b too");
    const backref = String(await retrieval.invoke({ key: "plain", pattern: "(a)\\1+b" }));
    expect(backref).toContain("1 line matches");
    expect(backref).toContain("1: one (a)\\1+b here");
    expect(backref).toContain("searched as plain text");
  });

  it("stops a long scan at its deadline and says where to continue; continuing finds the rest", async () => {
    const text = Array.from(
      { length: 200_000 },
      (_, i) => `row ${i} ${i % 1000 === 0 ? "HIT" : "miss"} ${"b".repeat(30)}`,
    ).join("\n");
    const pattern = compileLinePattern("(.*b){10}H") as LinePattern;
    expect(isRefused(pattern)).toBe(false);
    const first = searchLines(text, pattern, 0, 100_000, 5);
    expect(first.stoppedAt).toBeGreaterThan(0);
    expect(first.stoppedAt).toBeLessThan(text.length);
    // Continuing from where each scan stopped covers the text exactly once.
    const literal = compileLinePattern("HIT") as LinePattern;
    let from = 0;
    let count = 0;
    for (let guard = 0; guard < 10_000; guard++) {
      const part = searchLines(text, literal, from, 1_000_000, 1);
      count += part.count;
      if (part.stoppedAt === undefined) break;
      expect(part.stoppedAt).toBeGreaterThanOrEqual(from);
      from = part.stoppedAt;
    }
    expect(count).toBe(200);
  });

  it("finds the same lines as the native engine, for safe patterns (property)", () => {
    const lineArb = fc.stringMatching(/^[ab x1.]{0,30}$/);
    const patternArb = fc.constantFrom(
      "a",
      "ab",
      "a.b",
      "^a",
      "b$",
      "x1",
      "[ab]{3}",
      "a|x",
      "\\d",
      "a b",
      "(ab)+",
      "^$",
    );
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 30 }), patternArb, (lines, source) => {
        const text = lines.join("\n");
        const pattern = compileLinePattern(source) as LinePattern;
        const found = searchLines(text, pattern, 0, 1_000_000, 1000).matches.map((m) => m.lineNumber);
        const native = new RegExp(source);
        const expected = text.split("\n").flatMap((line, i) => (native.test(line) ? [i + 1] : []));
        expect(found).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
