import { countBlock } from "./raw.js";

/**
 * Text that was decoded with the wrong encoding looks like binary data to a naive check (UTF-16
 * is half NULs; Windows-1252 read as UTF-8 is sprinkled with U+FFFD), but it is text, and the
 * model should be told so rather than told to find an extractor.
 */
export type EncodingFinding =
  /** UTF-16 read one byte per character: decoded here; `lost` characters could not be recovered. */
  | { kind: "utf-16"; byteOrder: "LE" | "BE"; decoded: string; lost: number }
  /** A legacy 8-bit encoding read as UTF-8: `lost` characters show as U+FFFD. */
  | { kind: "legacy-8-bit"; lost: number };

/** Characters sampled to recognise UTF-16. */
const SAMPLE = 4096;

/**
 * What a wrong encoding shows in a text: NULs (UTF-16, see utf16) or U+FFFD (a legacy encoding,
 * see legacy). Without either, detectEncoding finds nothing.
 */
export const MISENCODING_HINT = /[\u0000\ufffd]/;

export function detectEncoding(text: string): EncodingFinding | undefined {
  return utf16(text) ?? legacy(text);
}

/**
 * UTF-16 read as UTF-8 or Latin-1: every other character is NUL (the high byte of ASCII and
 * Latin letters), the others are text. Also recognised by a byte order mark read as Latin-1.
 */
function utf16(text: string): EncodingFinding | undefined {
  let body = text;
  let order: "LE" | "BE" | undefined;
  if (body.startsWith("\u00ff\u00fe")) [body, order] = [body.slice(2), "LE"];
  else if (body.startsWith("\u00fe\u00ff")) [body, order] = [body.slice(2), "BE"];
  else if (body.startsWith("\ufffd\ufffd")) body = body.slice(2);
  const sample = body.slice(0, SAMPLE);
  if (sample.length < 8) return undefined;
  const nulAt = [0, 0];
  const printableAt = [0, 0];
  for (let i = 0; i < sample.length; i++) {
    const code = sample.charCodeAt(i);
    if (code === 0) nulAt[i % 2]!++;
    else if (code >= 0x20 || code === 9 || code === 10 || code === 13) printableAt[i % 2]!++;
  }
  const half = sample.length / 2;
  const parity = nulAt[1]! >= nulAt[0]! ? 1 : 0;
  if (nulAt[parity]! < half * 0.6 || nulAt[1 - parity]! > half * 0.05 || printableAt[1 - parity]! < half * 0.9)
    return undefined;
  const byteOrder = order ?? (parity === 1 ? "LE" : "BE");
  if (body.length % 2 === 1) body = body.slice(0, -1);
  let decoded = "";
  let lost = 0;
  for (let i = 0; i + 1 < body.length; i += 2) {
    const [lo, hi] =
      byteOrder === "LE" ? [body.charCodeAt(i), body.charCodeAt(i + 1)] : [body.charCodeAt(i + 1), body.charCodeAt(i)];
    if (lo > 0xff || hi > 0xff) {
      lost++;
      decoded += "\ufffd";
    } else decoded += String.fromCharCode(lo | (hi << 8));
  }
  return { kind: "utf-16", byteOrder, decoded, lost };
}

/**
 * A legacy 8-bit encoding (Windows-1252, Latin-1, Windows-1251...) read as UTF-8: accented or
 * non-Latin letters became U+FFFD, but there are no NULs or control characters, and the text
 * has words (spaces) between them. Binary data has controls in every few hundred bytes.
 */
function legacy(text: string): EncodingFinding | undefined {
  if (text.indexOf("\ufffd") === -1) return undefined;
  // Read in blocks, giving up at the first block with controls: binary data has them everywhere.
  let replacement = 0;
  let spaces = 0;
  let controls = 0;
  for (let start = 0; start < text.length; start += 4096) {
    const counts = countBlock(text, start, Math.min(text.length, start + 4096));
    controls += counts.nul + counts.control;
    if (controls > Math.max(1, text.length / 1000)) return undefined;
    replacement += counts.replacement;
    spaces += counts.spaces;
  }
  if (replacement < 8 || spaces < text.length * 0.05) return undefined;
  return { kind: "legacy-8-bit", lost: replacement };
}
