/** Longest file name produced; most file systems allow 255 bytes. */
const MAX_NAME = 200;
const KEEP = /^[a-z0-9_-]$/;

/**
 * The file name a key is stored under. Every byte outside `a-z 0-9 _ -` is written as `%XX`
 * (upper-case letters too, so keys differing only in case stay apart on case-insensitive file
 * systems), and a prefix keeps clear of reserved names such as `CON`. The result has no path
 * separator and cannot be `.` or `..`, so no key can point outside the store's folder. Long keys
 * are cut and made unique again with a hash of the whole key.
 */
export function fileNameForKey(key: string): string {
  return `${safeName("result-", key)}.txt`;
}

/**
 * The folder (or namespace label) a thread's results are kept under: `thread-<escaped id>`, or
 * `no-thread` for runs without a thread id. Distinct ids give distinct names, by the same
 * escaping as `fileNameForKey`; the names hold no `.` or `:`, which LangGraph stores refuse.
 */
export function scopeNameForThread(threadId: string | undefined): string {
  return threadId === undefined ? "no-thread" : safeName("thread-", threadId);
}

function safeName(prefix: string, text: string): string {
  let escaped = "";
  for (const byte of new TextEncoder().encode(text)) {
    const char = String.fromCharCode(byte);
    escaped += KEEP.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  const name = `${prefix}${escaped}`;
  if (name.length <= MAX_NAME - 4) return name;
  return `${prefix}${escaped.slice(0, MAX_NAME - 44)}-${fnv1a64(text)}`;
}

/** 64-bit FNV-1a of the text's UTF-16 code units, as 16 hex digits. */
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}
