import { scalarJson } from "./scalarJson.js";

/**
 * Text for any value a tool returns, so that what reaches the model is never "[object Object]",
 * "{}" or a megabyte of byte numbers. Compact JSON where JSON can say it; an explicit spelling
 * otherwise: BigInt as its digits, a cycle as "[circular]", a Map as an object (or a list of
 * pairs when its keys are not strings), a Set as a list, binary data as its size plus a short hex
 * preview, an Error as its name and message, a function as "[function name]".
 */
export function renderValue(value: unknown): string {
  return write(value, new Set(), 0);
}

/** Hex characters of binary data shown to the model. */
export const BINARY_PREVIEW_BYTES = 32;
const MAX_DEPTH = 64;

/** Text for binary data: size and a short hex preview, never the bytes themselves. */
export function describeBytes(byteCount: number, previewHex: string): string {
  const more = byteCount > previewHex.length / 2 ? "…" : "";
  return `[${byteCount} bytes of binary data, not shown as text; first bytes in hex: ${previewHex}${more}]`;
}

export function hexPreview(bytes: ArrayLike<number>): string {
  let hex = "";
  const shown = Math.min(bytes.length, BINARY_PREVIEW_BYTES);
  for (let i = 0; i < shown; i++) hex += (bytes[i]! & 0xff).toString(16).padStart(2, "0");
  return hex;
}

function write(value: unknown, path: Set<object>, depth: number): string {
  if (typeof value === "bigint") return value.toString();
  const scalar = scalarJson(value);
  if (scalar !== undefined) return scalar;
  const object = value as object;
  if (path.has(object)) return JSON.stringify("[circular]");
  if (depth >= MAX_DEPTH) return JSON.stringify("[nested too deep]");
  path.add(object);
  try {
    return writeObject(object, path, depth + 1);
  } finally {
    path.delete(object);
  }
}

function writeObject(object: object, path: Set<object>, depth: number): string {
  if (Array.isArray(object)) return `[${object.map((item) => write(item, path, depth)).join(",")}]`;
  if (ArrayBuffer.isView(object)) {
    const bytes = new Uint8Array(object.buffer, object.byteOffset, object.byteLength);
    return JSON.stringify(describeBytes(bytes.length, hexPreview(bytes)));
  }
  if (object instanceof ArrayBuffer)
    return JSON.stringify(describeBytes(object.byteLength, hexPreview(new Uint8Array(object))));
  if (object instanceof Map) {
    const entries = [...object.entries()];
    if (entries.every(([key]) => typeof key === "string" || typeof key === "number")) {
      return `{${entries.map(([key, item]) => `${JSON.stringify(String(key))}:${write(item, path, depth)}`).join(",")}}`;
    }
    return `[${entries.map(([key, item]) => `[${write(key, path, depth)},${write(item, path, depth)}]`).join(",")}]`;
  }
  if (object instanceof Set) return `[${[...object].map((item) => write(item, path, depth)).join(",")}]`;
  if (object instanceof Error) {
    const code = (object as { code?: unknown }).code;
    return write({ name: object.name, message: object.message, ...(code === undefined ? {} : { code }) }, path, depth);
  }
  if (object instanceof RegExp) return JSON.stringify(String(object));
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") {
    let converted: unknown;
    try {
      converted = toJSON.call(object);
    } catch {
      converted = "[value whose toJSON failed]";
    }
    if (converted !== object) return write(converted, path, depth);
  }
  const parts: string[] = [];
  for (const key of Object.keys(object)) {
    const item = (object as Record<string, unknown>)[key];
    if (item === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${write(item, path, depth)}`);
  }
  return `{${parts.join(",")}}`;
}
