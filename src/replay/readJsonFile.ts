import { readFileSync } from "node:fs";
import { isAscii } from "node:buffer";
import { firstLineOf } from "../core/errors.js";

/** The value of a JSON file; `fail` turns what went wrong into the caller's own error. */
export function readJsonFile(path: string, fail: (reason: string) => Error): unknown {
  try {
    const bytes = readFileSync(path);
    if (isAscii(bytes)) return JSON.parse(bytes.toString("utf8"));
    const escaped = escapedJsonText(bytes);
    if (escaped !== undefined) {
      try {
        return JSON.parse(escaped);
      } catch {
        // The file's own text tells what is wrong with it, in its own positions.
      }
    }
    return JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    throw fail(
      error instanceof SyntaxError ? `bad JSON (${error.message})` : `cannot read the file (${firstLineOf(error)})`,
    );
  }
}

/**
 * The JSON text of `bytes` in ASCII, each UTF-8 character written as its `\u` escape; undefined
 * when that could change what the text says (a character after a backslash, bytes that are not
 * UTF-8), and the text is read as it is. Saved threads are ASCII but for a few characters (a
 * dash, a quote mark, an accent), and one of them makes the whole text two bytes a character:
 * decoding it costs more than parsing it. Escaped, it parses to the very same value. A JSON text
 * holds other characters than ASCII only inside its strings, where an escape means the same
 * character; anywhere else both texts are invalid.
 */
function escapedJsonText(bytes: Buffer): string | undefined {
  // Pieces of the buffer, joined outside the JavaScript heap: one string is made, of the whole text.
  const parts: Buffer[] = [];
  let copied = 0;
  for (let chunk = 0; chunk < bytes.length; chunk += ASCII_CHUNK) {
    const end = Math.min(bytes.length, chunk + ASCII_CHUNK);
    if (isAscii(bytes.subarray(chunk, end))) continue;
    for (let i = Math.max(chunk, copied); i < end; i++) {
      const lead = bytes[i]!;
      if (lead < 0x80) continue;
      // After a backslash the escape would read as an escaped backslash and text.
      if (bytes[i - 1] === BACKSLASH) return undefined;
      const length =
        lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
      if (length === 0) return undefined;
      let code = lead & (0xff >> (length + 1));
      for (let k = 1; k < length; k++) {
        const next = bytes[i + k];
        if (next === undefined || (next & 0xc0) !== 0x80) return undefined;
        code = (code << 6) | (next & 0x3f);
      }
      // Overlong forms, surrogates and code points past Unicode are not UTF-8: left to the decoder.
      if (code < MIN_CODE[length]! || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return undefined;
      parts.push(bytes.subarray(copied, i), Buffer.from(escapeOf(code), "latin1"));
      i += length - 1;
      copied = i + 1;
    }
  }
  parts.push(bytes.subarray(copied));
  return Buffer.concat(parts).toString("utf8");
}

/** Non-ASCII bytes come in a few runs: whole chunks of ASCII are skipped at native speed. */
const ASCII_CHUNK = 4096;
const BACKSLASH = 0x5c;
/** The smallest code point each length of sequence may encode. */
const MIN_CODE = [0, 0, 0x80, 0x800, 0x10000];

function escapeOf(code: number): string {
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, "0")}`;
  const offset = code - 0x10000;
  return `${escapeOf(0xd800 + (offset >> 10))}${escapeOf(0xdc00 + (offset & 0x3ff))}`;
}
