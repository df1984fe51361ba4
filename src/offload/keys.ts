const UNSAFE = /[^A-Za-z0-9_-]/g;
const SAFE_KEY = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * A new key for one offloaded result: tool name, the end of the tool call id (both reduced to
 * letters, digits, `_` and `-`, so the key is a valid file name, store key and path segment
 * everywhere) and a random part. Call ids cannot make keys unique on their own: models reuse
 * them (`call_0` every turn), and the reduction maps `call.1` and `call:1` to the same text; the
 * random part keeps every result under its own key, so no put replaces another result.
 */
export function offloadKey(toolName: string, toolCallId: string): string {
  const tool = toolName.replace(UNSAFE, "_").slice(0, 40) || "tool";
  const id = toolCallId.replace(UNSAFE, "_").slice(-24) || "call";
  return `${tool}-${id}-${globalThis.crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
}

/** Whether `key` has the shape `offloadKey` produces; keys a model supplies are checked before they become paths. */
export function isOffloadKey(key: string): boolean {
  return SAFE_KEY.test(key);
}
