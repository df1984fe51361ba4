import { scalarJson } from "../core/scalarJson.js";

/**
 * Canonical JSON: object keys sorted at every depth, so equal values give equal text whatever
 * their key order. It never throws: BigInt, cycles, Map/Set, byte arrays, functions and symbols
 * get explicit, stable spellings instead of JSON.stringify's errors or silent drops.
 */
export function canonicalJson(value: unknown): string {
  // Most values are JSON data (arguments as a model wrote them): for those the native writer
  // gives the very same text, without building it piece by piece; objects with keys out of order
  // are copied with their keys in order first.
  if (value === undefined) return write(value, []);
  const data = dataKind(value, 0);
  if (data === SORTED) return JSON.stringify(value);
  if (data === UNSORTED) return JSON.stringify(inKeyOrder(value));
  return write(value, []);
}

/** `value` with the keys of every object in sorted order: the objects out of order, and those holding them, copied. */
function inKeyOrder(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = inKeyOrder(value[i]);
      if (item !== value[i] && !out) out = value.slice(0, i);
      out?.push(item);
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = sortedKeys(record);
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = inKeyOrder(record[key]);
  return out;
}

/** Deeper than any real argument (or a cycle): left to `write`, which spells a cycle its own way. */
const MAX_NATIVE_DEPTH = 64;

const NOT_DATA = 0;
const SORTED = 1;
const UNSORTED = 2;

/** A key an object lists before the others (an array index), in numeric order, whatever order it was added in. */
function isIndexLike(key: string): boolean {
  const c = key.charCodeAt(0);
  return c >= 48 && c <= 57 && INDEX.test(key);
}

const INDEX = /^(?:0|[1-9]\d{0,9})$/;

/**
 * Whether JSON.stringify writes `value` as `write` does: strings, finite numbers, booleans and
 * null, in plain arrays and plain objects, with every object's keys in sorted order (SORTED) or
 * not (UNSORTED, then `inKeyOrder` first). `undefined` is written alike by both inside arrays
 * (null) and objects (left out). What a copy could not put in order is left to `write`: an object
 * out of order with integer-like keys, and `__proto__`, which an assignment does not add as a key.
 */
function dataKind(value: unknown, depth: number): typeof NOT_DATA | typeof SORTED | typeof UNSORTED {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "undefined":
      return SORTED;
    case "number":
      return Number.isFinite(value) ? SORTED : NOT_DATA;
    case "object":
      break;
    default:
      return NOT_DATA;
  }
  if (value === null) return SORTED;
  if (depth >= MAX_NATIVE_DEPTH) return NOT_DATA;
  let kind: typeof SORTED | typeof UNSORTED = SORTED;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype === Array.prototype) {
    const array = value as unknown[];
    for (let i = 0; i < array.length; i++) {
      const item = dataKind(array[i], depth + 1);
      if (item === NOT_DATA) return NOT_DATA;
      if (item === UNSORTED) kind = UNSORTED;
    }
    return kind;
  }
  if (prototype !== Object.prototype && prototype !== null) return NOT_DATA;
  const record = value as Record<string, unknown>;
  const own = Object.keys(record);
  let sorted = true;
  for (let i = 0; i < own.length; i++) {
    const key = own[i]!;
    if (key === "__proto__") return NOT_DATA;
    // Sorted as `write` sorts them (by UTF-16 code units).
    if (i > 0 && !(own[i - 1]! < key)) sorted = false;
    const item = dataKind(record[key], depth + 1);
    if (item === NOT_DATA) return NOT_DATA;
    if (item === UNSORTED) kind = UNSORTED;
  }
  if (sorted) return kind;
  // Only keys out of order need copying, and an index-like key is the one a copy cannot reorder.
  return own.some(isIndexLike) ? NOT_DATA : UNSORTED;
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
