import fc from "fast-check";
import type { Step } from "./history.js";

/**
 * Steps of made-up histories that sit on both sides of the loop guards' fast paths: exact
 * repeats, respellings (case, whitespace, key order, a comment), near-duplicates (a field added,
 * an instruction reworded, code rearranged), failures that name an argument's value and retries
 * that keep it, leafless calls (prose only, no arguments), and plain new calls. A few tools, one
 * of them called most, so its near-duplicate window (the last 12 calls) fills and slides.
 */

/** Arguments drawn from small pools, so that repeats and near repeats are frequent. */
export const nearRepeatArgs: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ path: fc.constantFrom("src/a.py", "SRC/A.py", " src/a.py", "src/b.py", "src/c.py") }),
  fc.record({ path: fc.constantFrom("src/a.py", "src/b.py"), line: fc.constantFrom(1, 2) }),
  fc.record({ id: fc.constantFrom("HAT001", "hat001", "HAT002"), card: fc.constantFrom("gift_1", "credit_2") }),
  fc.record({ id: fc.constantFrom("HAT001", "HAT002") }),
  fc.record({
    query: fc.constantFrom(
      "find the cheapest flight from paris to rome for tomorrow morning",
      "find the cheapest flight from Paris to Rome for tomorrow morning please",
      "please find me the cheapest flight from paris to rome tomorrow morning",
      "open the file 'a.mp3' and read it to me",
      "open the file 'b.mp3' and read it to me",
    ),
  }),
  fc.record({
    command: fc.constantFrom(
      "grep -n foo src/a.py | head -5",
      "grep -n foo src/a.py | head -5 # again",
      "head -5 | grep -n foo src/a.py",
      "cat src/a.py",
      "sed -i 's/x/y/' src/a.py",
    ),
  }),
  fc.record({ key: fc.nat({ max: 40 }).map((n) => `k${n}`) }),
  fc.constant({}),
);

const callArb = fc.record({
  tool: fc.constantFrom("read_file", "read_file", "read_file", "edit_file", "book", "bash"),
  args: nearRepeatArgs,
  result: fc.constantFrom(
    '{"key":"k9","value":2}',
    "same page\nline 2",
    "same page\nline 3",
    "another page",
    "Error: flight HAT001 not available",
    "Error: src/a.py not found",
    "Error: balance is not enough",
    "<returncode>0</returncode><output></output>",
  ),
  status: fc.constantFrom<"success" | "error">("success", "success", "error"),
});

/** A call, now and then a parallel batch, and now and then a user message. */
export const nearRepeatStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 12, arbitrary: callArb },
  { weight: 2, arbitrary: fc.record({ batch: fc.array(callArb, { minLength: 2, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ human: fc.constantFrom("again", "thanks, go on", "check src/a.py") }) },
);

/**
 * Calls of one tool with a key drawn from a wider pool: a key comes back after any distance, so
 * matches sit just inside and just outside the last 12 calls; some add a field, some fail naming
 * their key.
 */
export const keyedReadStep: fc.Arbitrary<Step> = fc
  .record({ n: fc.nat({ max: 25 }), page: fc.boolean(), fail: fc.boolean() })
  .map(({ n, page, fail }) => ({
    tool: "read_file",
    args: page ? { key: `k${n}`, page: 2 } : { key: `k${n}` },
    result: fail ? `Error: k${n} not found` : `{"key":"k${n}","value":${n % 3}}`,
    status: fail ? ("error" as const) : ("success" as const),
  }));

/**
 * Reads of new keys, as often echoing the read `back` calls before, exactly or with a field added
 * (a near-duplicate, same result): echoes of echoes sit on both sides of the 12 calls a
 * near-duplicate is looked for among. Distances are drawn evenly (fast-check favours small ones).
 */
export const echoingReads: fc.Arbitrary<Step[]> = fc
  .array(fc.record({ back: fc.noBias(fc.integer({ min: -14, max: 15 })), near: fc.boolean() }), {
    minLength: 1,
    maxLength: 40,
    size: "max",
  })
  .map((echoes) => {
    const keys: string[] = [];
    return echoes.map(({ back, near }, i) => {
      const echo = back > 0 && back <= i;
      const key = echo ? keys[i - back]! : `k${i}`;
      keys.push(key);
      return {
        tool: "read_file",
        args: echo && near ? { key, page: 2 } : { key },
        result: `{"key":"${key}","value":1}`,
      };
    });
  });
