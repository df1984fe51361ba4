import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Every `*.json` file under `dir`, its subfolders included, sorted by path in plain string order
 * (not the locale's), so a folder replays in the same order on every machine. Both `eval <folder>`
 * and `loadThreads` walk folders with it.
 */
export function jsonFilesUnder(dir: string): string[] {
  return walk(dir).sort();
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path));
    else if (entry.isFile() && entry.name.endsWith(".json")) out.push(path);
  }
  return out;
}
