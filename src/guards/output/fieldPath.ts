/**
 * Field paths as the validator's messages show them. A key comes from the tool's output, so it
 * is data: a key the spec's schema declares is shown, other keys only when they are short plain
 * identifiers, and anything else as `[key]`, so no payload text reaches the model outside the
 * envelope through a message that names a field.
 */
export function fieldPath(path: readonly PropertyKey[], declaredKeys: ReadonlySet<string> = NO_KEYS): string {
  if (path.length === 0) return "(root)";
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else {
      const shown = shownKey(String(key), declaredKeys);
      out += out === "" ? shown : `.${shown}`;
    }
  }
  return out;
}

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]{0,23}$/;
const NO_KEYS: ReadonlySet<string> = new Set();

function shownKey(key: string, declaredKeys: ReadonlySet<string>): string {
  return declaredKeys.has(key) || PLAIN_KEY.test(key) ? key : "[key]";
}

const declared = new WeakMap<object, ReadonlySet<string>>();

/** Property names a zod schema declares anywhere in it (its JSON Schema's `properties`); none when it cannot say. */
export function declaredKeysOf(
  schema: { toJSONSchema?: unknown } | undefined,
  toJsonSchema: (schema: never) => unknown,
): ReadonlySet<string> {
  if (!schema) return NO_KEYS;
  let keys = declared.get(schema);
  if (!keys) {
    const found = new Set<string>();
    try {
      collectProperties(toJsonSchema(schema as never), found, 0);
    } catch {
      // transforms and other shapes JSON Schema cannot spell: fall back to plain identifiers
    }
    keys = found;
    declared.set(schema, keys);
  }
  return keys;
}

function collectProperties(node: unknown, found: Set<string>, depth: number): void {
  if (depth > 32 || node === null || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const item of node) collectProperties(item, found, depth + 1);
    return;
  }
  const record = node as Record<string, unknown>;
  const properties = record.properties;
  if (properties !== null && typeof properties === "object") for (const key of Object.keys(properties)) found.add(key);
  for (const value of Object.values(record)) collectProperties(value, found, depth + 1);
}
