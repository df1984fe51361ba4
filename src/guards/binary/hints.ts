import { isBase64Char, MAX_PADDING, MIN_BASE64_RUN } from "./base64.js";
import { ESCAPES_HINT } from "./escapes.js";
import { DUMP_LINE_HINT, isHexChar, MIN_HEX_RUN, MIN_WRAPPED_LINE, WRAPPED_LINE_AFTER } from "./hex.js";
import { JSON_HINT } from "./json.js";
import { nextRun } from "./region.js";

/**
 * Whether the text holds something the base64, hex, escape and JSON finders need before they can
 * find a region. When it does not (nearly every result), none of them finds anything, and the
 * text is read at native speed, or a run length at a time (see nextRun).
 */
export function mayHoldRegion(text: string): boolean {
  // Hex digits are base64 characters: every run either finder starts from lies in a run of at
  // least MIN_WRAPPED_LINE base64 characters, which nextRun returns from its start.
  for (let start = nextRun(text, 0, MIN_WRAPPED_LINE, isBase64Char); start !== -1;) {
    // Read up to LONG_RUN only: a payload's run may be megabytes long.
    let end = start + MIN_WRAPPED_LINE;
    while (end - start < LONG_RUN && end < text.length && isBase64Char(text.charCodeAt(end))) end++;
    if (end - start >= LONG_RUN) return true;
    // A shorter run is no payload itself; it can only be the first line of a wrapped hex block:
    // hex to its end (a line break is no base64 character), then a line break and more hex.
    let hex = end;
    while (hex > start && isHexChar(text.charCodeAt(hex - 1))) hex--;
    WRAPPED_LINE_AFTER.lastIndex = end;
    if (end - hex >= MIN_WRAPPED_LINE && WRAPPED_LINE_AFTER.test(text)) return true;
    start = nextRun(text, end + 1, MIN_WRAPPED_LINE, isBase64Char);
  }
  // Dump lines, byte escapes and the JSON forms start with something a native search finds
  // (one search each: together in one pattern they are slower).
  return DUMP_LINE_HINT.test(text) || ESCAPES_HINT.test(text) || JSON_HINT.test(text);
}

/**
 * A base64 run from which either finder may find a payload on its own: base64 from
 * MIN_BASE64_RUN characters (a data URL's payload counts its padding), hex from MIN_HEX_RUN
 * digits in one line (hex.ts judgeHexRun).
 */
const LONG_RUN = Math.min(MIN_BASE64_RUN - MAX_PADDING, MIN_HEX_RUN);
