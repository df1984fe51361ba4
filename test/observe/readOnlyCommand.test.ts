import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isReadOnlyCommand } from "../../src/observe/readOnlyCommand.js";

const reads = (command: string) => isReadOnlyCommand({ command });

describe("isReadOnlyCommand", () => {
  it("reads: look-ups, listings, pipelines of readers, git inspection", () => {
    for (const command of [
      "cat astropy/io/ascii/rst.py",
      'grep -rn "def write" src | head -20',
      "find . -name '*.py' -path '*ascii*'",
      "cd /repo && ls -la && nl -ba a.py | sed -n '10,40p'",
      "git diff && git status",
      "grep -n 'a > b' x.py 2>/dev/null",
    ])
      expect(reads(command), command).toBe(true);
  });

  it("may change the world: writes, in-place edits, scripts, test runs, anything unknown", () => {
    for (const command of [
      "cat <<'EOF' > a.py\nprint(1)\nEOF",
      "sed -i 's/a/b/' a.py",
      "echo x >> log.txt",
      "grep x a | tee out.txt",
      "find . -name '*.pyc' -delete",
      "python reproduce.py",
      "python -m pytest tests",
      "git stash",
      "ls $(make dirs)",
    ])
      expect(reads(command), command).toBe(false);
    expect(isReadOnlyCommand({ path: "a.py" })).toBe(false);
    expect(isReadOnlyCommand("cat a.py")).toBe(false);
  });

  it("judges a command by its first word as it judges it in full", () => {
    // `cd . && ` in front changes nothing a command does, and sends it the long way: the quick
    // answer from the first word alone must be the same.
    const word = fc.constantFrom(
      "cat",
      "grep",
      "python",
      "/usr/bin/ls",
      "./run.sh",
      "git",
      "log",
      "sed",
      "x=1",
      "2",
      "a.py",
    );
    const glue = fc.constantFrom(" ", " | ", " && ", "; ", "\n", " > out ", " 2>/dev/null ", " '|' ", ' "$(x)" ', "=");
    const command = fc
      .array(fc.tuple(word, glue), { minLength: 1, maxLength: 6 })
      .map((parts) => parts.map(([w, g]) => w + g).join(""));
    fc.assert(
      fc.property(fc.constantFrom("", " ", "\t"), command, (lead, text) => {
        expect(reads(lead + text)).toBe(reads(`cd . && ${lead}${text}`));
      }),
      { numRuns: 500 },
    );
  });
});
