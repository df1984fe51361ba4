const UNSAFE = /[^A-Za-z0-9_-]/g;
const SAFE_KEY = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * The key a result is offloaded under: tool name and tool call id, reduced to letters, digits,
 * `_` and `-` so it is a valid file name, store key and path segment everywhere. Distinct calls
 * get distinct keys (providers make call ids unique); a call without an id gets a random one.
 */
export function offloadKey(toolName: string, toolCallId: string): string {
  const tool = toolName.replace(UNSAFE, "_").slice(0, 40) || "tool";
  const id = toolCallId.replace(UNSAFE, "_").slice(-64) || globalThis.crypto.randomUUID();
  return `${tool}-${id}`;
}

/** Whether `key` has the shape `offloadKey` produces; keys a model supplies are checked before they become paths. */
export function isOffloadKey(key: string): boolean {
  return SAFE_KEY.test(key);
}
