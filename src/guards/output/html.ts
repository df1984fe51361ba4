import { fieldPath } from "./fieldPath.js";
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
 * string, or undefined. Only strings up to two levels down are looked at: wrappers are shallow,
 * and walking every string of a large payload would cost more than the rest of the validation.
 */
export function findHtmlInJson(value: unknown, maxDepth = 2): string | undefined {
  const path: (string | number)[] = [];
  return search(value, maxDepth, path) ? fieldPath(path.reverse()) : undefined;
}

/** Depth-first; `path` receives the keys of the hit, innermost first, only once one is found. */
function search(value: unknown, depth: number, path: (string | number)[]): boolean {
  if (typeof value === "string") return isHtmlDocument(value);
  if (depth === 0 || value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (search(value[i], depth - 1, path)) return path.push(i) > 0;
    }
    return false;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    if (search(record[keys[i]!], depth - 1, path)) return path.push(keys[i]!) > 0;
  }
  return false;
}
