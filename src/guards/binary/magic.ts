/**
 * File signatures ("magic numbers") and matching them against what a tool returned: raw bytes,
 * bytes that went through a text decoder (Latin-1, or UTF-8 with U+FFFD for invalid bytes), or
 * the start of a base64 payload.
 */

export interface MagicSignature {
  /** Read by the model: what the file is, e.g. "PNG image". */
  label: string;
  mediaType: string;
  /** Byte values at `offset`; -1 matches any byte. */
  bytes: readonly number[];
  offset?: number;
}

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));
const ANY4 = [-1, -1, -1, -1];

export const MAGIC_SIGNATURES: readonly MagicSignature[] = Object.freeze([
  { label: "PDF document", mediaType: "application/pdf", bytes: ascii("%PDF-") },
  { label: "PNG image", mediaType: "image/png", bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { label: "JPEG image", mediaType: "image/jpeg", bytes: [0xff, 0xd8, 0xff] },
  { label: "GIF image", mediaType: "image/gif", bytes: ascii("GIF87a") },
  { label: "GIF image", mediaType: "image/gif", bytes: ascii("GIF89a") },
  { label: "WebP image", mediaType: "image/webp", bytes: [...ascii("RIFF"), ...ANY4, ...ascii("WEBP")] },
  { label: "WAV audio", mediaType: "audio/wav", bytes: [...ascii("RIFF"), ...ANY4, ...ascii("WAVE")] },
  { label: "AVI video", mediaType: "video/x-msvideo", bytes: [...ascii("RIFF"), ...ANY4, ...ascii("AVI ")] },
  { label: "BMP image", mediaType: "image/bmp", bytes: [...ascii("BM"), ...ANY4, 0, 0, 0, 0] },
  { label: "TIFF image", mediaType: "image/tiff", bytes: [0x49, 0x49, 0x2a, 0x00] },
  { label: "TIFF image", mediaType: "image/tiff", bytes: [0x4d, 0x4d, 0x00, 0x2a] },
  { label: "icon image", mediaType: "image/x-icon", bytes: [0x00, 0x00, 0x01, 0x00] },
  { label: "Photoshop image", mediaType: "image/vnd.adobe.photoshop", bytes: ascii("8BPS") },
  {
    label: "ZIP archive (or a docx/xlsx/pptx/jar file, which are ZIP archives)",
    mediaType: "application/zip",
    bytes: [0x50, 0x4b, 0x03, 0x04],
  },
  { label: "ZIP archive", mediaType: "application/zip", bytes: [0x50, 0x4b, 0x05, 0x06] },
  { label: "ZIP archive", mediaType: "application/zip", bytes: [0x50, 0x4b, 0x07, 0x08] },
  { label: "gzip archive", mediaType: "application/gzip", bytes: [0x1f, 0x8b, 0x08] },
  {
    label: "bzip2 archive",
    mediaType: "application/x-bzip2",
    bytes: [...ascii("BZh"), -1, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59],
  },
  { label: "xz archive", mediaType: "application/x-xz", bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { label: "Zstandard archive", mediaType: "application/zstd", bytes: [0x28, 0xb5, 0x2f, 0xfd] },
  { label: "7-Zip archive", mediaType: "application/x-7z-compressed", bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { label: "RAR archive", mediaType: "application/vnd.rar", bytes: [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07] },
  { label: "ELF executable", mediaType: "application/x-elf", bytes: [0x7f, 0x45, 0x4c, 0x46] },
  { label: "Mach-O executable", mediaType: "application/x-mach-binary", bytes: [0xfe, 0xed, 0xfa, 0xce] },
  { label: "Mach-O executable", mediaType: "application/x-mach-binary", bytes: [0xfe, 0xed, 0xfa, 0xcf] },
  { label: "Mach-O executable", mediaType: "application/x-mach-binary", bytes: [0xce, 0xfa, 0xed, 0xfe] },
  { label: "Mach-O executable", mediaType: "application/x-mach-binary", bytes: [0xcf, 0xfa, 0xed, 0xfe] },
  {
    label: "Java class file (or Mach-O universal binary)",
    mediaType: "application/java-vm",
    bytes: [0xca, 0xfe, 0xba, 0xbe],
  },
  {
    label: "Windows executable",
    mediaType: "application/vnd.microsoft.portable-executable",
    bytes: [0x4d, 0x5a, 0x90, 0x00],
  },
  {
    label: "Windows executable",
    mediaType: "application/vnd.microsoft.portable-executable",
    bytes: [0x4d, 0x5a, 0x50, 0x00],
  },
  { label: "WebAssembly module", mediaType: "application/wasm", bytes: [0x00, 0x61, 0x73, 0x6d] },
  { label: "SQLite database", mediaType: "application/vnd.sqlite3", bytes: [...ascii("SQLite format 3"), 0x00] },
  {
    label: "legacy Microsoft Office file (doc/xls/ppt)",
    mediaType: "application/x-ole-storage",
    bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
  },
  { label: "MP4/QuickTime video", mediaType: "video/mp4", bytes: ascii("ftyp"), offset: 4 },
  { label: "MP3 audio", mediaType: "audio/mpeg", bytes: [...ascii("ID3"), -1, 0x00] },
  { label: "Ogg audio", mediaType: "audio/ogg", bytes: ascii("OggS") },
  { label: "FLAC audio", mediaType: "audio/flac", bytes: ascii("fLaC") },
  { label: "MIDI audio", mediaType: "audio/midi", bytes: ascii("MThd") },
  { label: "WebM/Matroska video", mediaType: "video/webm", bytes: [0x1a, 0x45, 0xdf, 0xa3] },
  { label: "WOFF font", mediaType: "font/woff", bytes: ascii("wOFF") },
  { label: "WOFF2 font", mediaType: "font/woff2", bytes: ascii("wOF2") },
  { label: "TrueType font", mediaType: "font/ttf", bytes: [0x00, 0x01, 0x00, 0x00, 0x00] },
]);

/** Bytes a signature can reach: the longest offset + length. */
export const MAGIC_SPAN = Math.max(...MAGIC_SIGNATURES.map((s) => (s.offset ?? 0) + s.bytes.length));

/**
 * Per first byte, the signatures that can match bytes starting with it, in list order: every
 * result is checked, and most start with a byte no signature starts with.
 */
const CANDIDATES_BY_FIRST_BYTE: readonly (readonly MagicSignature[])[] = Array.from({ length: 256 }, (_, byte) =>
  MAGIC_SIGNATURES.filter(
    (s) => (s.offset ?? 0) > 0 || s.bytes.length === 0 || s.bytes[0] === -1 || s.bytes[0] === byte,
  ),
);

/** The signature `bytes` starts with, if any. */
export function matchMagicBytes(bytes: ArrayLike<number>): MagicSignature | undefined {
  const first = bytes[0];
  const candidates =
    first !== undefined && first >= 0 && first <= 0xff && Number.isInteger(first)
      ? CANDIDATES_BY_FIRST_BYTE[first]!
      : MAGIC_SIGNATURES;
  for (const signature of candidates) {
    const start = signature.offset ?? 0;
    if (bytes.length < start + signature.bytes.length) continue;
    let matched = true;
    for (let i = 0; i < signature.bytes.length && matched; i++) {
      const expected = signature.bytes[i]!;
      if (expected !== -1 && bytes[start + i] !== expected) matched = false;
    }
    if (matched) return signature;
  }
  return undefined;
}

const REPLACEMENT = 0xfffd;
/** Marks a U+FFFD in a decoded view: it stands for one to three invalid bytes of 0x80 or above. */
const LOST_HIGH_BYTES = -2;

/**
 * The signature a text starts with, where the text is binary data that went through a decoder:
 * Latin-1 (each char is a byte) or UTF-8 (invalid bytes became U+FFFD, valid sequences became
 * characters). Never throws.
 */
export function matchMagicText(text: string): MagicSignature | undefined {
  const head = text.slice(0, MAGIC_SPAN);
  if (head.length === 0) return undefined;
  let highest = 0;
  for (let i = 0; i < head.length; i++) highest = Math.max(highest, head.charCodeAt(i));
  if (highest <= 0xff) {
    const bytes = new Array<number>(head.length);
    for (let i = 0; i < head.length; i++) bytes[i] = head.charCodeAt(i);
    const direct = matchMagicBytes(bytes);
    // Pure ASCII reads the same through any decoder: nothing more to try.
    if (direct || highest < 0x80) return direct;
  }
  const decoded = utf8View(head);
  for (const signature of MAGIC_SIGNATURES) {
    if (matchesDecoded(signature.bytes, decoded, signature.offset ?? 0)) return signature;
  }
  return undefined;
}

/** The text's UTF-8 bytes, with each U+FFFD as LOST_HIGH_BYTES. */
function utf8View(text: string): number[] {
  const out: number[] = [];
  const encoder = new TextEncoder();
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code === REPLACEMENT) out.push(LOST_HIGH_BYTES);
    else if (code < 0x80) out.push(code);
    else out.push(...encoder.encode(char));
  }
  return out;
}

/**
 * A lossy match must rest on at least this many bytes that survived decoding: "\uFFFD\uFFFD\uFFFD"
 * alone could be any binary file, not necessarily a JPEG.
 */
const MIN_SURVIVING_BYTES = 2;

/**
 * Whether `decoded` carries `expected` at `offset`. A U+FFFD stands for one to three expected
 * bytes of 0x80 or above; every other expected byte must be there as is.
 */
function matchesDecoded(expected: readonly number[], decoded: readonly number[], offset: number): boolean {
  const walk = (e: number, d: number, surviving: number): boolean => {
    if (e === expected.length) return surviving >= MIN_SURVIVING_BYTES;
    if (d >= decoded.length) return false;
    const want = expected[e]!;
    const have = decoded[d]!;
    if (have === LOST_HIGH_BYTES) {
      for (let run = 1; run <= 3 && e + run <= expected.length; run++) {
        const b = expected[e + run - 1]!;
        if (b !== -1 && b < 0x80) break;
        if (walk(e + run, d + 1, surviving)) return true;
      }
      return false;
    }
    if (want !== -1 && want !== have) return false;
    return walk(e + 1, d + 1, want === -1 ? surviving : surviving + 1);
  };
  return decoded.length >= offset && walk(0, offset, 0);
}

const BASE64_VALUE = new Int16Array(128).fill(-1);
for (const [i, c] of [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].entries())
  BASE64_VALUE[c.charCodeAt(0)] = i;
BASE64_VALUE["-".charCodeAt(0)] = 62;
BASE64_VALUE["_".charCodeAt(0)] = 63;

/** Decodes the leading base64 (or base64url) characters of `text`, stopping at the first other character. */
export function decodeBase64Head(text: string, maxBytes = MAGIC_SPAN): Uint8Array {
  const out = new Uint8Array(maxBytes);
  let length = 0;
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < text.length && length < maxBytes; i++) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? BASE64_VALUE[code]! : -1;
    if (value === -1) break;
    buffer = ((buffer << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[length++] = (buffer >> bits) & 0xff;
    }
  }
  return out.subarray(0, length);
}

/** The signature a base64 payload decodes to, if any. */
export function matchMagicBase64(base64: string): MagicSignature | undefined {
  return matchMagicBytes(decodeBase64Head(base64));
}
