/**
 * What LangChain's result formatting left of a value that was not plain JSON, recognised from
 * the ToolMessage text alone (the raw value is gone by then; `withSafeResults` sees it):
 * - `lost`: `JSON.stringify` threw (BigInt, a cycle) and `String(value)` gave "[object Object]";
 * - `empty`: the tool returned undefined, a function or an empty string;
 * - `binary`: a Buffer or byte array serialised as one number per byte;
 * - `emptyList`: the tool returned an empty array, which LangChain keeps as an empty list of
 *   content blocks: no text at all (OpenAI refuses it as a message's content).
 * A Map or Set serialised as "{}" cannot be told from a real empty object, so it is not flagged.
 */
export type DegradedResult =
  { kind: "lost" } | { kind: "empty" } | { kind: "emptyList" } | { kind: "binary"; bytes: number[] };

const OBJECT_TAG = /^\[object [A-Za-z]+\]$/;
const BUFFER_PREFIX = '{"type":"Buffer","data":[';
/** Smallest index-keyed object of byte values taken for a serialised byte array. */
const MIN_INDEXED_BYTES = 8;

export function degradedResult(content: unknown): DegradedResult | undefined {
  if (Array.isArray(content) && content.length === 0) return { kind: "emptyList" };
  if (typeof content !== "string") return undefined;
  if (content === "") return { kind: "empty" };
  if (content.length < 64 && OBJECT_TAG.test(content)) return { kind: "lost" };
  if (content.startsWith(BUFFER_PREFIX)) return bufferBytes(content);
  if (content.startsWith('{"0":')) return indexedBytes(content);
  return undefined;
}

function bufferBytes(content: string): DegradedResult | undefined {
  const parsed = parse(content) as { type?: unknown; data?: unknown } | undefined;
  if (!parsed || parsed.type !== "Buffer" || !Array.isArray(parsed.data) || Object.keys(parsed).length !== 2)
    return undefined;
  return parsed.data.every(isByte) ? { kind: "binary", bytes: parsed.data as number[] } : undefined;
}

function indexedBytes(content: string): DegradedResult | undefined {
  const parsed = parse(content);
  if (!parsed || typeof parsed !== "object") return undefined;
  const keys = Object.keys(parsed);
  if (keys.length < MIN_INDEXED_BYTES) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < keys.length; i++) {
    const value = (parsed as Record<string, unknown>)[String(i)];
    if (!isByte(value)) return undefined;
    bytes.push(value);
  }
  return { kind: "binary", bytes };
}

function isByte(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 255;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
