import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const child = join(import.meta.dirname, "children", "resumeLoop.ts");
const tsx = join(import.meta.dirname, "..", "..", "node_modules", ".bin", "tsx");

describe("loop guards after a checkpoint restore in a new process", () => {
  it("fire at the right call when a thread saved in SQLite resumes elsewhere", () => {
    const db = join(mkdtempSync(join(tmpdir(), "hk-resume-")), "threads.sqlite");
    const crashed = execFileSync(tsx, [child, db, "t-1", "crash"], { encoding: "utf8" });
    expect(crashed).toBe(""); // the first process died mid-run, after two polls
    const resumed = JSON.parse(execFileSync(tsx, [child, db, "t-1", "resume"], { encoding: "utf8" })) as {
      runs: number;
      signals: string[];
      toolMessages: number;
      last: string;
    };
    // Two identical polls are already in the checkpoint: the very next one is refused, no poll runs again.
    expect(resumed.runs).toBe(0);
    expect(resumed.signals).toEqual(["directive", "directive", "stop"]);
    expect(resumed.toolMessages).toBe(5);
    expect(resumed.last).toMatch(/^Run stopped by ProgressAwareLoopGuardMiddleware/);
  }, 60_000);
});
