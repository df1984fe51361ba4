/** How an argument names files: a path, or a glob pattern (see `patternPaths`). */
export type ArgumentKind = "path" | "pattern";

/** Where a value sits in a call's arguments: keys and array indexes from the top. */
export type ArgumentLocation = readonly (string | number)[];

/** A string the guard must check, found somewhere in a call's arguments. */
export interface FoundArgument {
  /** Where the value sits; for a key, where the object holding it sits. */
  at: ArgumentLocation;
  /** The key it sits under, through any arrays (`files[0].src` is under `src`). */
  name: string;
  kind: ArgumentKind;
  value: string;
  /** The value is a key of the object at `at` (`{files: {"a.txt": "b.txt"}}`), not a value. */
  isKey?: true;
  /** The path strings of the same object: a pattern may be relative to any of them (deepagents `glob(pattern, path)`). */
  siblings: readonly string[];
}

export type FoundArguments = { ok: true; found: FoundArgument[] } | { ok: false; problem: "too_deep" };

/** Nesting walked at most; deeper arguments are refused, not skipped. */
const MAX_DEPTH = 64;

/**
 * Every string in `args` that sits under a key named in `names`, at any depth: `{path}`,
 * `{paths: [["a"]]}`, `{options: {path}}`. A listed key's value is checked all the way down: every
 * string in it, keys of its objects included, is a candidate, since a tool may read any of them
 * as a path (`{files: [{src, dest}]}` with only `files` listed checks `src` and `dest`). A
 * string takes the kind of the nearest listed key above it, arrays being transparent. Strings
 * outside every listed key (`content` beside `file_path`) are not paths; values that are not
 * strings (numbers, booleans, null) are left to the tool's schema.
 */
export function findPathArguments(args: unknown, names: ReadonlyMap<string, ArgumentKind>): FoundArguments {
  const found: FoundArgument[] = [];
  const ancestors = new Set<object>();

  // `kind`: that of the nearest listed key above, undefined outside every listed key.
  const visit = (
    value: unknown,
    at: (string | number)[],
    name: string | undefined,
    kind: ArgumentKind | undefined,
    siblings: readonly string[],
  ): boolean => {
    if (at.length > MAX_DEPTH) return false;
    if (typeof value === "string") {
      if (kind) found.push({ at: [...at], name: name!, kind, value, siblings });
      return true;
    }
    if (value === null || typeof value !== "object" || ancestors.has(value)) return true;
    ancestors.add(value);
    try {
      if (Array.isArray(value)) return value.every((item, index) => visit(item, [...at, index], name, kind, siblings));
      const entries = Object.entries(value);
      if (kind)
        for (const [key] of entries) found.push({ at: [...at], name: name!, kind, value: key, isKey: true, siblings });
      const paths = entries.filter(([key]) => (names.get(key) ?? kind) === "path").flatMap(([, v]) => stringsIn(v));
      return entries.every(([key, item]) => visit(item, [...at, key], key, names.get(key) ?? kind, paths));
    } finally {
      ancestors.delete(value);
    }
  };

  return visit(args, [], undefined, undefined, []) ? { ok: true, found } : { ok: false, problem: "too_deep" };
}

/** `args` with the strings at the given locations replaced; everything else shared, nothing mutated. */
export function replaceArguments(
  args: unknown,
  replacements: ReadonlyArray<{ at: ArgumentLocation; value: string }>,
): unknown {
  let result = args;
  for (const { at, value } of replacements) result = replaceAt(result, at, 0, value);
  return result;
}

function replaceAt(node: unknown, at: ArgumentLocation, depth: number, value: string): unknown {
  if (depth === at.length) return value;
  const key = at[depth]!;
  if (Array.isArray(node)) {
    const copy = [...node];
    copy[key as number] = replaceAt(node[key as number], at, depth + 1, value);
    return copy;
  }
  const record = node as Record<string, unknown>;
  return { ...record, [key]: replaceAt(record[key as string], at, depth + 1, value) };
}

function stringsIn(value: unknown, depth = 0): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) && depth < MAX_DEPTH ? value.flatMap((item) => stringsIn(item, depth + 1)) : [];
}
