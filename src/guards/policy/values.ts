import { canonicalJson } from "../../observe/canonical.js";

/** The value at a dot path (`"a.b.0"`): object keys and array indexes; undefined when absent. */
export function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    if (!Object.prototype.hasOwnProperty.call(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** A key two JSON-equal values share and no unequal values do: `1` and `"1"` differ, key order does not matter. */
export function equalityKey(value: unknown): string {
  if (value === null || typeof value !== "object") return `${typeof value}:${String(value)}`;
  return `json:${canonicalJson(value)}`;
}

const MAX_SHOWN = 120;

/** A value as one line of text for an explanation: strings as they are, others as JSON, cut long. */
export function shown(value: unknown): string {
  let text: string;
  if (typeof value === "string") text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  text = text.replace(/\s+/g, " ");
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}
