import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/**
 * A temporary folder for one test file, removed after its tests, and a writer into it: a string
 * is written as it is, anything else as JSON; folders in `name` are created. Returns the path.
 */
export function tempFiles(prefix: string): { dir: string; write: (name: string, value: unknown) => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, value: unknown): string => {
    const path = join(dir, name);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
    return path;
  };
  return { dir, write };
}
