import { scalarJson } from "../core/scalarJson.js";

/**
 * Canonical JSON: object keys sorted at every depth, so equal values give equal text whatever
 * their key order. It never throws: BigInt, cycles, Map/Set, byte arrays, functions and symbols
 * get explicit, stable spellings instead of JSON.stringify's errors or silent drops.
 */
export function canonicalJson(value: unknown): string {
  // Most values are JSON data already in canonical key order (arguments as a model wrote them):
  // for those the native writer gives the very same text, without building it piece by piece.
  return value !== undefined && isCanonicalData(value, 0) ? JSON.stringify(value) : write(value, []);
}

/** Deeper than any real argument (or a cycle): left to `write`, which spells a cycle its own way. */
const MAX_NATIVE_DEPTH = 64;

/**
 * Whether JSON.stringify writes `value` exactly as `write` does: strings, finite numbers,
 * booleans and null, in plain arrays and plain objects whose keys are already sorted. `undefined`
 * is written alike by both inside arrays (null) and objects (left out).
 */
function isCanonicalData(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "undefined":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= MAX_NATIVE_DEPTH) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype === Array.prototype) {
    const array = value as unknown[];
    for (let i = 0; i < array.length; i++) if (!isCanonicalData(array[i], depth + 1)) return false;
    return true;
  }
  if (prototype !== Object.prototype && prototype !== null) return false;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    // Sorted as `write` sorts them (by UTF-16 code units); integer-like keys, which objects list first, fail here.
    if (i > 0 && !(keys[i - 1]! < keys[i]!)) return false;
    if (!isCanonicalData(record[keys[i]!], depth + 1)) return false;
  }
  return true;
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
  const keys = sortedKeys(record);
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

/** Object.keys sorted as `Array.prototype.sort` sorts them; a few keys are sorted in place, sparing sort's buffers. */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (keys.length > FEW_KEYS) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}

const FEW_KEYS = 16;

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
