import { matchMagicText, type MagicSignature } from "./magic.js";
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
