import { MAGIC_SIGNATURES, matchMagicText, type MagicSignature } from "./magic.js";
import { countBlock } from "./raw.js";

/**
 * The file signature a decoded text starts with, when it proves the text is that file. A
 * signature of printable ASCII only ("%PDF-", "GIF89a") also needs raw binary within the first
 * 4 KB: "%PDF-1.7 is a version" is a sentence, not a PDF.
 */
export function provenSignatureAt(text: string, at: number): MagicSignature | undefined {
  const signature = matchMagicText(text.slice(at, at + 64));
  if (!signature) return undefined;
  if (signature.bytes.some((b) => b >= 0x80 || (b >= 0 && b < 0x20))) return signature;
  const counts = countBlock(text, at, Math.min(text.length, at + 4096));
  return counts.nul + counts.control + counts.replacement > 0 ? signature : undefined;
}

/**
 * Whether a text of printable ASCII, tabs and line breaks can start with a proven signature. A
 * signature it matches has only those characters as fixed bytes; one of printable characters only
 * needs raw binary as well, which such a text has none of; so it takes a signature with a tab or
 * a line break among otherwise printable bytes. No signature in MAGIC_SIGNATURES is one.
 */
export const SIGNATURE_PROVABLE_IN_ASCII = MAGIC_SIGNATURES.some(
  (s) => s.bytes.every((b) => b === -1 || isTextByte(b)) && s.bytes.some((b) => b === 9 || b === 10 || b === 13),
);

function isTextByte(byte: number): boolean {
  return byte === 9 || byte === 10 || byte === 13 || (byte >= 0x20 && byte < 0x7f);
}
