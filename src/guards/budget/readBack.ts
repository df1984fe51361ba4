import type { LineSearch } from "./search.js";
import type { StoredSlice } from "../../offload/OffloadStore.js";
import { pairSafeEnd, pairSafeStart } from "./pairs.js";

/**
 * What the retrieval tool answers: a slice of a stored result, or its lines that match a
 * pattern. Pure functions of what was read; `room` is how many characters of content fit.
 */

/**
 * Read by the model: a slice by character offset, saying where to continue. `stored` holds the
 * result from `stored.start` on (a page read around `offset`, or all of it).
 */
export function renderSlice(
  key: string,
  stored: StoredSlice,
  offset: number,
  length: number | undefined,
  room: number,
): string {
  const { total } = stored;
  const asked = Math.min(Math.max(0, Math.floor(offset)), total);
  if (asked >= total && total > 0) {
    return `[The result stored under "${key}" has ${total} characters; offset ${Math.floor(offset)} is past its end.]`;
  }
  const local = (i: number) => i - stored.start;
  // An offset inside a pair starts the page at the pair, so the page opens on a whole character.
  const start = stored.start + pairSafeEnd(stored.text, local(asked));
  const available = stored.start + stored.text.length;
  const wanted = Math.min(total, available, start + Math.max(0, Math.floor(Math.min(length ?? room, room))));
  const end = wanted === total ? total : stored.start + pageEnd(stored.text, local(start), local(wanted), room);
  const next = end < total ? `Continue with offset ${end}.` : "This is the end of the result.";
  return `[Characters ${start} to ${end} of ${total} stored under "${key}". ${next}]\n${stored.text.slice(local(start), local(end))}`;
}

/**
 * Where a page of `text` from `start` ends: before a pair it would split, or just after it when
 * that would leave the page empty and the room takes two characters (an empty page would send
 * the model back to the same offset for ever).
 */
function pageEnd(text: string, start: number, end: number, room: number): number {
  const before = pairSafeEnd(text, end);
  if (before > start || end === start || room < 2) return before;
  return pairSafeStart(text, end);
}

/**
 * Read by the model: the lines (numbered from 1) a search found, as many as fit in `room`, with
 * the count and the offset to continue from; a search the deadline stopped says so.
 */
export function renderMatches(key: string, search: LineSearch, room: number): string {
  const shown: string[] = [];
  let used = 0;
  let next: number | undefined;
  for (const match of search.matches) {
    const entry = `${match.lineNumber}: ${match.line}`;
    if (used + entry.length + 1 > room) {
      next = match.position;
      break;
    }
    shown.push(entry);
    used += entry.length + 1;
  }
  if (next === undefined && search.matches.length < search.count) {
    // Counted but not kept: continue after the last line shown.
    const last = search.matches[search.matches.length - 1];
    next = last ? last.nextLine : search.from;
  }
  const display = search.pattern.display;
  const lines = search.count === 1 ? "1 line matches" : `${search.count} lines match`;
  const header =
    search.stoppedAt === undefined
      ? `[${lines} ${display} in the result stored under "${key}"${search.from > 0 ? ` from character ${search.from} on` : ""}, shown as "line number: line".`
      : `[${lines} ${display} in characters ${search.from} to ${search.stoppedAt} of the ${search.total} stored under "${key}", shown as "line number: line". The search stopped there to answer within ${search.timeLimitMs} ms.`;
  const more =
    next !== undefined
      ? ` Shown: the first ${shown.length}; continue with offset ${next} and the same pattern.`
      : search.stoppedAt !== undefined
        ? ` To search the rest, continue with offset ${search.stoppedAt} and the same pattern.`
        : "";
  const note = search.pattern.note ? ` Note: ${search.pattern.note}.` : "";
  return shown.length > 0 ? `${header}${more}${note}]\n${shown.join("\n")}` : `${header}${more}${note}]`;
}

/** Where the text of a retrieval answer comes from: the stored result's key, and the offset it was read at. */
export interface ReadBackSource {
  key: string;
  /** The offset to read it again from. */
  offset: number;
  /** The pattern, for an answer that listed matching lines. */
  search?: boolean;
}

const SLICE_HEADER = /^\[Characters (\d+) to \d+ of \d+ stored under "([^"\n]{1,200})"\./;
const MATCHES_HEADER =
  /^\[(?:\d+ lines? match(?:es)?) .{0,2000}? (?:in the result stored under|stored under) "([^"\n]{1,200})"(?: from character (\d+) on)?/;

/**
 * What a retrieval answer (`renderSlice`, `renderMatches`) reads back, from its header: the text
 * is already stored under that key, so whoever must shorten the answer points there again
 * rather than store it a second time.
 */
export function readBackSource(text: string): ReadBackSource | undefined {
  const slice = SLICE_HEADER.exec(text);
  if (slice) return { key: slice[2]!, offset: Number(slice[1]) };
  const matches = MATCHES_HEADER.exec(text);
  if (matches) return { key: matches[1]!, offset: matches[2] === undefined ? 0 : Number(matches[2]), search: true };
  return undefined;
}
