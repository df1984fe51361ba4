/**
 * What the retrieval tool answers: a slice of a stored result, or its lines that match a
 * pattern. Pure functions of the stored text; `room` is how many characters of content fit.
 */

/** Read by the model: a slice by character offset, saying where to continue. */
export function renderSlice(key: string, text: string, offset: number, length: number | undefined, room: number): string {
  const total = text.length;
  const start = Math.min(Math.max(0, Math.floor(offset)), total);
  if (start >= total && total > 0) {
    return `[The result stored under "${key}" has ${total} characters; offset ${Math.floor(offset)} is past its end.]`;
  }
  let end = Math.min(total, start + Math.max(0, Math.floor(Math.min(length ?? room, room))));
  if (end < total && end > start && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  const next = end < total ? `Continue with offset ${end}.` : "This is the end of the result.";
  return `[Characters ${start} to ${end} of ${total} stored under "${key}". ${next}]\n${text.slice(start, end)}`;
}

/** A pattern from the model: a regular expression, or the literal text when it is not a valid one. */
export function compilePattern(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  }
}

/** Longest line shown whole; longer ones are cut around their first match. */
const LINE_CHARS = 500;

/**
 * Read by the model: the lines (numbered from 1) matching `pattern`, from character `from` on,
 * as many as fit in `room`, with the total count and the offset to continue from.
 */
export function renderMatches(key: string, text: string, pattern: RegExp, from: number, room: number): string {
  const start = Math.min(Math.max(0, Math.floor(from)), text.length);
  let lineNumber = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < start; i = text.indexOf("\n", i + 1)) lineNumber++;

  const shown: string[] = [];
  let used = 0;
  let total = 0;
  let next: number | undefined;
  let position = start;
  while (position <= text.length) {
    let end = text.indexOf("\n", position);
    if (end === -1) end = text.length;
    const line = text.slice(position, end);
    const match = pattern.exec(line);
    if (match) {
      total++;
      if (next === undefined) {
        const entry = `${lineNumber}: ${clipLine(line, match.index)}`;
        if (used + entry.length + 1 <= room) {
          shown.push(entry);
          used += entry.length + 1;
        } else next = position;
      }
    }
    if (end === text.length) break;
    position = end + 1;
    lineNumber++;
  }
  const where = start > 0 ? ` from character ${start} on` : "";
  const more = next !== undefined ? ` Shown: the first ${shown.length}; continue with offset ${next} and the same pattern.` : "";
  const header = `[${total} lines match ${String(pattern)} in the result stored under "${key}"${where}, shown as "line number: line".${more}]`;
  return shown.length > 0 ? `${header}\n${shown.join("\n")}` : header;
}

function clipLine(line: string, matchAt: number): string {
  if (line.length <= LINE_CHARS) return line;
  const begin = Math.max(0, Math.min(matchAt - LINE_CHARS / 2, line.length - LINE_CHARS));
  const end = begin + LINE_CHARS;
  return `${begin > 0 ? "…" : ""}${line.slice(begin, end)}${end < line.length ? "…" : ""}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
