/**
 * JSON for a value that is not an object, spelled alike wherever harness-kit writes values (the
 * canonical form that is hashed, the text the model reads): a non-finite number, `undefined`, a
 * function or a symbol get an explicit spelling instead of JSON.stringify's `null` or silence.
 * `undefined` for an object or a BigInt, which each writer spells its own way.
 */
export function scalarJson(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : JSON.stringify(String(value));
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
      return "null";
    case "function":
      return JSON.stringify(`[function ${value.name || "anonymous"}]`);
    case "symbol":
      return JSON.stringify(value.toString());
  }
  return value === null ? "null" : undefined;
}
