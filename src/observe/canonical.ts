import { scalarJson } from "../core/scalarJson.js";

/**
 * Canonical JSON: object keys sorted at every depth, so equal values give equal text whatever
 * their key order. It never throws: BigInt, cycles, Map/Set, byte arrays, functions and symbols
 * get explicit, stable spellings instead of JSON.stringify's errors or silent drops.
 */
export function canonicalJson(value: unknown): string {
  return write(value, []);
}

function write(value: unknown, path: object[]): string {
  if (typeof value === "bigint") return JSON.stringify(`${value}n`); // not the number it would equal
  const scalar = scalarJson(value);
  if (scalar !== undefined) return scalar;
  const object = value as object;
  // `path` holds the objects being written above this one: a short array beats a Set here.
  if (path.includes(object)) return '"[circular]"';
  path.push(object);
  const text = writeObject(object, path);
  path.pop();
  return text;
}

function writeObject(object: object, path: object[]): string {
  if (Array.isArray(object)) {
    let out = "[";
    for (let i = 0; i < object.length; i++) out += (i ? "," : "") + write(object[i], path);
    return `${out}]`;
  }
  if (object instanceof Date)
    return JSON.stringify(Number.isNaN(object.getTime()) ? "Invalid Date" : object.toISOString());
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
  const keys = Object.keys(record).sort();
  let out = "{";
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    out += `${first ? "" : ","}${quotedKey(key)}:${write(item, path)}`;
    first = false;
  }
  return `${out}}`;
}

// Argument keys repeat across calls; quoting each once saves most of the work on large histories.
const quotedKeys = new Map<string, string>();

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < 10_000) quotedKeys.set(key, quoted);
  }
  return quoted;
}

function bytesToHex(view: ArrayBufferView): string {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
