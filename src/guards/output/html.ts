/** Starts of an HTML document: what an error or maintenance page served with status 200 looks like. */
const HTML_DOCUMENT = /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body)[\s>]/i;

/** True when `text` is an HTML page (not merely text that mentions a tag). */
export function isHtmlDocument(text: string): boolean {
  let start = 0;
  while (start < text.length && text.charCodeAt(start) <= 32) start++;
  // Most strings fail here; the regex only runs on text that starts with a tag.
  if (text.charCodeAt(start) !== 60) return false;
  return HTML_DOCUMENT.test(text.slice(start, start + 4096));
}

/**
 * Where a parsed JSON value carries an HTML page in one of its strings (a gateway wrapping its
 * error page as `{"status": 200, "body": "<!DOCTYPE html>…"}`): the path of the first such
 * string, or undefined. Depth is bounded because wrappers are shallow and payloads can be deep.
 */
export function findHtmlInJson(value: unknown, maxDepth = 3): string | undefined {
  return search(value, "", maxDepth);
}

function search(value: unknown, path: string, depth: number): string | undefined {
  if (typeof value === "string") return isHtmlDocument(value) ? path || "(root)" : undefined;
  if (depth === 0 || value === null || typeof value !== "object") return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = search(value[i], `${path}[${i}]`, depth - 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key in value as Record<string, unknown>) {
    const found = search((value as Record<string, unknown>)[key], path ? `${path}.${key}` : key, depth - 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
