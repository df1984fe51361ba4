import { matchMagicBase64, matchMagicText, type MagicSignature } from "./binaryMagic.js";
import { isTextMediaType, parseDataUrl } from "./binaryMedia.js";

/** Why a text was judged to be binary data. */
export type TextEvidence =
  | { kind: "magic-number"; signature: MagicSignature }
  | { kind: "magic-number-in-base64"; signature: MagicSignature }
  | { kind: "data-url"; mediaType: string }
  | { kind: "nul-bytes"; share: number }
  | { kind: "replacement-characters"; share: number }
  | { kind: "control-characters"; share: number };

/**
 * Thresholds, as shares of the sampled characters. Binary data decoded as text is dense with
 * these (tens of percent); real text has none, or a stray few from a bad encoding.
 */
export const SNIFF_THRESHOLDS = Object.freeze({
  nulShare: 0.001,
  replacementShare: 0.05,
  controlShare: 0.1,
  /** Below this many occurrences in the samples, a share is noise. */
  minCount: 8,
  /** A NUL this close to the start is a binary header, not a stray character. */
  nulHeadChars: 8192,
  /** A base64 run must be at least this long to count as an embedded file. */
  minBase64Run: 64,
});

const WINDOW = 4096;
const WINDOWS = 16;

/**
 * Evidence that `text` is binary data rather than text, or `undefined`. Large texts are judged
 * from up to 16 windows of 4 KiB spread over them (head and tail included) plus one native scan
 * for NUL, so the cost does not grow with the size. Never throws.
 */
export function sniffText(text: string): TextEvidence | undefined {
  if (text.length === 0) return undefined;
  const magic = magicAtStart(text);
  if (magic) return { kind: "magic-number", signature: magic };
  const samples = sampleWindows(text);
  const embedded = embeddedBase64(samples);
  if (embedded) return embedded;
  const counts = countSuspects(samples);
  const nul = nulEvidence(text, counts);
  if (nul) return nul;
  if (counts.replacement >= SNIFF_THRESHOLDS.minCount && counts.replacement / counts.total >= SNIFF_THRESHOLDS.replacementShare) {
    return { kind: "replacement-characters", share: counts.replacement / counts.total };
  }
  if (counts.control >= SNIFF_THRESHOLDS.minCount && counts.control / counts.total >= SNIFF_THRESHOLDS.controlShare) {
    return { kind: "control-characters", share: counts.control / counts.total };
  }
  return undefined;
}

/**
 * A signature at the start of the text, or at the start of its second line when the first is a
 * short header (deepagents' `read_file` puts "@@ lines 1-9 of 9 @@" before the content).
 */
function magicAtStart(text: string): MagicSignature | undefined {
  const direct = matchMagicText(text) ?? base64AtStart(text);
  if (direct) return direct;
  const newline = text.indexOf("\n");
  if (newline === -1 || newline > 200) return undefined;
  const rest = text.slice(newline + 1, newline + 1 + 256);
  return matchMagicText(rest) ?? base64AtStart(rest);
}

function base64AtStart(text: string): MagicSignature | undefined {
  const trimmed = text.slice(0, 512).trimStart().replace(/^["']/, "");
  const url = parseDataUrl(trimmed);
  if (url) return matchMagicBase64(url.head);
  return /^[A-Za-z0-9+/_-]{16}/.test(trimmed) ? matchMagicBase64(trimmed) : undefined;
}

/** The whole text when small, else windows spread evenly from head to tail. */
export function sampleWindows(text: string): string[] {
  if (text.length <= WINDOW * WINDOWS) return [text];
  const samples: string[] = [];
  const step = (text.length - WINDOW) / (WINDOWS - 1);
  for (let i = 0; i < WINDOWS; i++) {
    const start = Math.round(i * step);
    samples.push(text.slice(start, start + WINDOW));
  }
  return samples;
}

const DATA_URL = /data:([a-z0-9][\w.+-]*\/[\w.+-]+)?(?:;[\w.+=-]+)*;base64,/gi;
/** Runs decoded per sample at most: a text of hashes must not cost a decode per line. */
const MAX_RUNS = 64;

/** A base64 data URL of a non-text type, or a long base64 run that decodes to a known signature. */
function embeddedBase64(samples: readonly string[]): TextEvidence | undefined {
  for (const sample of samples) {
    DATA_URL.lastIndex = 0;
    for (let m = DATA_URL.exec(sample); m; m = DATA_URL.exec(sample)) {
      const mediaType = m[1]?.toLowerCase();
      const start = m.index + m[0].length;
      if (mediaType && !isTextMediaType(mediaType) && base64RunLength(sample, start) >= SNIFF_THRESHOLDS.minBase64Run) {
        const signature = matchMagicBase64(sample.slice(start, start + 64));
        return signature ? { kind: "magic-number-in-base64", signature } : { kind: "data-url", mediaType };
      }
    }
    let runs = 0;
    for (let start = nextLongRun(sample, 0); start !== -1 && runs < MAX_RUNS; start = nextLongRun(sample, start + 1), runs++) {
      const signature = matchMagicBase64(sample.slice(start, start + 64));
      if (signature) return { kind: "magic-number-in-base64", signature };
      while (start < sample.length && isBase64Char(sample.charCodeAt(start))) start++;
    }
  }
  return undefined;
}

/**
 * Start of the next run of at least `minBase64Run` base64 characters at or after `from`, or -1.
 * Any such run starting in [i, i + min) covers i + min - 1, so when that character is not
 * base64 the scan jumps a whole run length: prose costs a fraction of a read per character.
 */
function nextLongRun(text: string, from: number): number {
  const min = SNIFF_THRESHOLDS.minBase64Run;
  let i = from;
  while (i + min <= text.length) {
    const probe = i + min - 1;
    if (!isBase64Char(text.charCodeAt(probe))) {
      i = probe + 1;
      continue;
    }
    let start = probe;
    while (start > i && isBase64Char(text.charCodeAt(start - 1))) start--;
    let end = probe + 1;
    while (end < text.length && end - start < min && isBase64Char(text.charCodeAt(end))) end++;
    if (end - start >= min) return start;
    i = end + 1;
  }
  return -1;
}

function base64RunLength(text: string, start: number): number {
  let end = start;
  while (end < text.length && end - start < SNIFF_THRESHOLDS.minBase64Run && isBase64Char(text.charCodeAt(end))) end++;
  return end - start;
}

function isBase64Char(code: number): boolean {
  return (
    (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 43 || code === 47 || code === 45 || code === 95
  );
}

interface SuspectCounts {
  total: number;
  nul: number;
  replacement: number;
  /** C0 controls other than whitespace, backspace and escape, plus C1 controls (Latin-1 decoded bytes). */
  control: number;
}

/** Any character `countSuspects` counts; a native scan for it skips clean samples fast. */
const SUSPECT = /[\u0000-\u0007\u000e-\u001a\u001c-\u001f\u007f-\u009f\ufffd]/;

function countSuspects(samples: readonly string[]): SuspectCounts {
  const counts: SuspectCounts = { total: 0, nul: 0, replacement: 0, control: 0 };
  for (const sample of samples) {
    counts.total += sample.length;
    if (!SUSPECT.test(sample)) continue;
    for (let i = 0; i < sample.length; i++) {
      const code = sample.charCodeAt(i);
      if (code >= 0x20 && code < 0x7f) continue;
      if (code === 0) counts.nul++;
      else if (code === 0xfffd) counts.replacement++;
      else if ((code < 0x20 && !ALLOWED_CONTROLS.has(code)) || (code >= 0x7f && code < 0xa0)) counts.control++;
    }
  }
  return counts;
}

/** Tab, newline, vertical tab, form feed, carriage return, backspace, escape (ANSI colours). */
const ALLOWED_CONTROLS = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x08, 0x1b]);

function nulEvidence(text: string, counts: SuspectCounts): TextEvidence | undefined {
  const first = text.indexOf("\u0000");
  if (first === -1) return undefined;
  const share = counts.total > 0 ? counts.nul / counts.total : 0;
  if (first < SNIFF_THRESHOLDS.nulHeadChars || share >= SNIFF_THRESHOLDS.nulShare) return { kind: "nul-bytes", share };
  // A NUL outside the samples: judge the window around it.
  const around = text.slice(Math.max(0, first - WINDOW / 2), first + WINDOW / 2);
  let nuls = 0;
  for (let i = 0; i < around.length; i++) if (around.charCodeAt(i) === 0) nuls++;
  const localShare = nuls / around.length;
  return localShare >= SNIFF_THRESHOLDS.nulShare * 10 ? { kind: "nul-bytes", share: localShare } : undefined;
}
