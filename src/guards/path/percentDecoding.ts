const ESCAPE_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const ANY_ESCAPE = /%[0-9A-Fa-f]{2}/;
const utf8 = new TextDecoder("utf-8", { fatal: false });

/** Whether `text` holds at least one `%XX` escape, so that a decoding tool would read it differently. */
export function hasPercentEscape(text: string): boolean {
  return ANY_ESCAPE.test(text);
}

/**
 * One round of percent-decoding the way lenient decoders do it (Python's `unquote`, Node's
 * `querystring.unescape`): every run of `%XX` escapes becomes its bytes read as UTF-8, invalid
 * or truncated sequences become U+FFFD, and a `%` not followed by two hex digits stays as it
 * is. `decodeURIComponent` throws on the first stray `%` instead, so a checker built on it stops
 * decoding where these tools go on.
 */
export function decodePercentOnce(text: string): string {
  return text.replace(ESCAPE_RUN, (run) => utf8.decode(bytesOf(run)));
}

/**
 * Whether an escape run holds an overlong UTF-8 form (`%C0%AE` for `.`, `%E0%80%AF` for `/`).
 * Modern decoders turn those into U+FFFD, old ones into the character, so no reading of such a
 * path is certain; no legitimate name needs them.
 */
export function hasOverlongEscape(text: string): boolean {
  for (const run of text.match(ESCAPE_RUN) ?? []) {
    const bytes = bytesOf(run);
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      const next = bytes[i + 1] ?? 0;
      if (b === 0xc0 || b === 0xc1) return true;
      if (b === 0xe0 && next >= 0x80 && next < 0xa0) return true;
      if (b === 0xf0 && next >= 0x80 && next < 0x90) return true;
    }
  }
  return false;
}

function bytesOf(run: string): Uint8Array {
  const bytes = new Uint8Array(run.length / 3);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
  return bytes;
}
