import type { BinaryRegion } from "./region.js";
import { UNKNOWN_LABEL } from "./texts.js";

/**
 * Raw bytes that went through a text decoder: NULs, control characters, and U+FFFD where UTF-8
 * decoding failed. Text is judged in blocks, so binary data inside a long text is found where it
 * is (and only it is removed), and the whole text is read: nothing hides between samples.
 */

/** Characters judged together. */
const BLOCK = 256;
/** NULs and control characters that make a block binary: text has none, or a stray one. */
const MIN_CONTROLS = 8;
/** U+FFFD share of a block without controls that makes it binary... */
const REPLACEMENT_SHARE = 0.25;
/** ...when it also has fewer spaces than this share: text in a legacy encoding has words, so spaces. */
const SPACE_SHARE = 0.05;

/** Any character the block judgement counts; a native scan for it skips clean blocks fast. */
const SUSPECT = /[\u0000-\u0007\u000e-\u001a\u001c-\u001f\u007f-\u009f\ufffd]/;

export interface BlockCounts {
  nul: number;
  /** C0 controls other than tab, line breaks, form feed, backspace and escape, plus DEL and C1 controls. */
  control: number;
  replacement: number;
  spaces: number;
  length: number;
  /** First and last suspect character. */
  first: number;
  last: number;
}

export function countBlock(text: string, start: number, end: number): BlockCounts {
  const counts: BlockCounts = {
    nul: 0,
    control: 0,
    replacement: 0,
    spaces: 0,
    length: end - start,
    first: -1,
    last: -1,
  };
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x21 && code < 0x7f) continue;
    if (code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d) {
      counts.spaces++;
      continue;
    }
    let suspect = true;
    if (code === 0) counts.nul++;
    else if (code === 0xfffd) counts.replacement++;
    else if (
      (code < 0x20 && code !== 0x0b && code !== 0x0c && code !== 0x08 && code !== 0x1b) ||
      (code >= 0x7f && code < 0xa0)
    )
      counts.control++;
    else suspect = false;
    if (suspect) {
      if (counts.first === -1) counts.first = i;
      counts.last = i;
    }
  }
  return counts;
}

export function blockIsBinary(counts: BlockCounts): boolean {
  if (counts.nul + counts.control >= Math.min(MIN_CONTROLS, Math.max(2, counts.length / 32))) return true;
  return counts.replacement >= counts.length * REPLACEMENT_SHARE && counts.spaces < counts.length * SPACE_SHARE;
}

/** Stretches of raw binary, block by block; neighbouring binary blocks (one clean block between at most) form one region. */
export function findRawRegions(text: string): BinaryRegion[] {
  const out: BinaryRegion[] = [];
  let open:
    { start: number; end: number; nul: number; control: number; replacement: number; cleanAfter: number } | undefined;
  const close = () => {
    if (!open) return;
    const evidence =
      open.nul > 0 ? "nul-bytes" : open.control >= open.replacement ? "control-characters" : "replacement-characters";
    out.push({
      start: open.start,
      end: open.end,
      label: UNKNOWN_LABEL,
      mediaType: undefined,
      evidence,
      form: "raw bytes",
      bytes: undefined,
    });
    open = undefined;
  };
  for (let start = 0; start < text.length; start += BLOCK) {
    const end = Math.min(text.length, start + BLOCK);
    if (!SUSPECT.test(text.slice(start, end))) {
      if (open && ++open.cleanAfter > 1) close();
      continue;
    }
    const counts = quickBinaryBlock(text, start, end) ?? countBlock(text, start, end);
    if (!blockIsBinary(counts)) {
      if (open && ++open.cleanAfter > 1) close();
      continue;
    }
    if (!open) open = { start: counts.first, end: counts.last + 1, nul: 0, control: 0, replacement: 0, cleanAfter: 0 };
    open.end = counts.last + 1;
    open.cleanAfter = 0;
    open.nul += counts.nul;
    open.control += counts.control;
    open.replacement += counts.replacement;
  }
  close();
  return out;
}

/**
 * Counts of a full block that is binary by its controls, read only until that is certain (and
 * back from the end for its last suspect character): a 10 MB binary file costs a fraction of a
 * read. Undefined when the block needs a full count.
 */
function quickBinaryBlock(text: string, start: number, end: number): BlockCounts | undefined {
  if (end - start < BLOCK) return undefined;
  let first = -1;
  let nul = 0;
  let control = 0;
  let i = start;
  for (; i < end && nul + control < MIN_CONTROLS; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code < 0x7f) continue;
    const isNul = code === 0;
    const isControl = !isNul && ((code < 0x20 && !ALLOWED_C0.has(code)) || (code >= 0x7f && code < 0xa0));
    if (isNul) nul++;
    else if (isControl) control++;
    if ((isNul || isControl || code === 0xfffd) && first === -1) first = i;
  }
  if (nul + control < MIN_CONTROLS) return undefined;
  let last = end - 1;
  while (last > i && !isSuspect(text.charCodeAt(last))) last--;
  return { nul, control, replacement: 0, spaces: 0, length: end - start, first, last: Math.max(last, i - 1) };
}

/** The characters SUSPECT matches. */
function isSuspect(code: number): boolean {
  return (
    code <= 0x07 ||
    (code >= 0x0e && code <= 0x1a) ||
    (code >= 0x1c && code <= 0x1f) ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0xfffd
  );
}

/** Tab, line breaks, vertical tab, form feed, backspace and escape (ANSI colours): text uses them. */
const ALLOWED_C0 = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x08, 0x1b]);

/** Why a whole (short) text is raw binary, or undefined: at least half of it lies in raw regions. */
export function rawBinaryEvidence(text: string): BinaryRegion["evidence"] | undefined {
  if (text.length === 0) return undefined;
  let covered = 0;
  let evidence: BinaryRegion["evidence"] | undefined;
  for (const region of findRawRegions(text)) {
    covered += region.end - region.start;
    evidence ??= region.evidence;
  }
  return covered * 2 >= text.length ? evidence : undefined;
}
