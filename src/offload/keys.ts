const UNSAFE = /[^A-Za-z0-9_-]/g;
const SAFE_KEY = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * The key one offloaded result is kept under: tool name and the end of the tool call id (both
 * reduced to letters, digits, `_` and `-`, so the key is a valid file name, store key and path
 * segment everywhere), then `digest`, 16 hex digits of a hash of the whole call id, tool name and
 * content (see `offloadDigestInput`). Call ids cannot make keys unique on their own: models reuse
 * them (`call_0` every turn), and the reduction maps `call.1` and `call:1` to the same text. With
 * the digest, a different result never gets the key of another, so no put replaces another
 * result; and the same result gets the same key in every process and in replay, so the preview
 * the model reads is a pure function of the history.
 */
export function offloadKey(toolName: string, toolCallId: string, digest: string): string {
  const tool = toolName.replace(UNSAFE, "_").slice(0, 40) || "tool";
  const id = toolCallId.replace(UNSAFE, "_").slice(-24) || "call";
  return `${tool}-${id}-${digest.replace(UNSAFE, "").slice(0, 16)}`;
}

/**
 * What the digest of `offloadKey` hashes: the exact call id, tool name and content, unambiguously
 * joined. Hashers read UTF-8, where a lone surrogate becomes U+FFFD; content that has one is
 * hashed as its JSON (which escapes it), marked so it cannot collide with well-formed content.
 */
export function offloadDigestInput(toolName: string, toolCallId: string, content: string): string {
  const exact = isWellFormed(content) ? `w${content}` : `j${JSON.stringify(content)}`;
  return `${toolCallId.length}:${toolCallId}\u0000${toolName.length}:${toolName}\u0000${exact}`;
}

function isWellFormed(text: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

/** Whether `key` has the shape `offloadKey` produces; keys a model supplies are checked before they become paths. */
export function isOffloadKey(key: string): boolean {
  return SAFE_KEY.test(key);
}
