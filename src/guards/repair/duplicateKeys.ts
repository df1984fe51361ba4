import { stringEnd } from "./jsonStrings.js";
/**
 * The first key that appears twice in one object of a strict JSON text, with its path, or
 * undefined. `JSON.parse` silently keeps the last value of a duplicated key, so a call like
 * `{"path":"a","path":"b"}` parses fine while nobody can tell which path the model meant.
 */
export function firstDuplicateKey(json: string): { key: string; path: string } | undefined {
  const objects: Array<{ keys: Set<string>; path: string; expectKey: boolean } | undefined> = [];
  const paths: string[] = ["$"];
  let i = 0;
  const n = json.length;
  while (i < n) {
    const ch = json.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      const end = stringEnd(json, i);
      const top = objects[objects.length - 1];
      if (top?.expectKey) {
        const raw = json.slice(i + 1, end - 1);
        const key = raw.includes("\\") ? (JSON.parse(json.slice(i, end)) as string) : raw;
        if (top.keys.has(key)) return { key, path: top.path };
        top.keys.add(key);
        top.expectKey = false;
        paths[paths.length - 1] = `${top.path}.${key}`;
      }
      i = end;
      continue;
    }
    if (ch === 0x7b /* { */) {
      objects.push({ keys: new Set(), path: paths[paths.length - 1]!, expectKey: true });
      paths.push(paths[paths.length - 1]!);
    } else if (ch === 0x5b /* [ */) {
      objects.push(undefined);
      paths.push(`${paths[paths.length - 1]!}[]`);
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      objects.pop();
      paths.pop();
    } else if (ch === 0x2c /* , */) {
      const top = objects[objects.length - 1];
      if (top) top.expectKey = true;
    }
    i++;
  }
  return undefined;
}
