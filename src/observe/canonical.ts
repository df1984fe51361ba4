/**
 * Canonical JSON: object keys sorted at every depth, so equal values give equal text whatever
 * their key order. It never throws: BigInt, cycles, Map/Set, byte arrays, functions and symbols
 * get explicit, stable spellings instead of JSON.stringify's errors or silent drops.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, path: Set<object>): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : JSON.stringify(String(value));
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return JSON.stringify(`${value}n`);
    case "undefined":
      return "null";
    case "function":
      return JSON.stringify(`[function ${value.name || "anonymous"}]`);
    case "symbol":
      return JSON.stringify(value.toString());
  }
  if (value === null) return "null";
  const object = value as object;
  if (path.has(object)) return JSON.stringify("[circular]");
  path.add(object);
  try {
    return writeObject(object, path);
  } finally {
    path.delete(object);
  }
}

function writeObject(object: object, path: Set<object>): string {
  if (Array.isArray(object)) return `[${object.map((item) => write(item, path)).join(",")}]`;
  if (object instanceof Date) return JSON.stringify(Number.isNaN(object.getTime()) ? "Invalid Date" : object.toISOString());
  if (object instanceof Map) {
    const entries = [...object.entries()].map(([k, v]) => `[${write(k, path)},${write(v, path)}]`).sort();
    return `{"$map":[${entries.join(",")}]}`;
  }
  if (object instanceof Set) {
    const items = [...object].map((item) => write(item, path)).sort();
    return `{"$set":[${items.join(",")}]}`;
  }
  if (ArrayBuffer.isView(object)) return `{"$bytes":"${bytesToHex(object)}"}`;
  const record = object as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${write(item, path)}`);
  }
  return `{${parts.join(",")}}`;
}

function bytesToHex(view: ArrayBufferView): string {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
