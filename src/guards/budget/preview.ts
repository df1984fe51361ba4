import type { Measure } from "./measure.js";
import { pairSafeEnd, pairSafeStart } from "./pairs.js";

/** The head and tail of a text kept in a preview; `omitted` characters between them are left out. */
export interface HeadTailCut {
  head: string;
  tail: string;
  /** Characters left out: `head.length + omitted + tail.length === text.length`. */
  omitted: number;
  /** Offset of the first omitted character (= head.length). */
  omittedFrom: number;
  /** Offset of the first tail character. */
  tailFrom: number;
}

/** A cut that leaves the whole text out. */
export function emptyCut(text: string): HeadTailCut {
  return { head: "", tail: "", omitted: text.length, omittedFrom: 0, tailFrom: text.length };
}

/** How far a cut may move back (head) or forward (tail) to land on a line break: a fifth of its room. */
const SNAP_SHARE = 0.2;

/**
 * Keeps at most `room` characters of `text`, half from the head and half from the tail, moving
 * each cut to a line break when one is close, and never splitting a surrogate pair. At least one
 * character is always omitted.
 */
export function cutHeadTail(text: string, room: number): HeadTailCut {
  const keep = Math.max(0, Math.min(Math.floor(room), text.length - 1));
  const headRoom = Math.ceil(keep / 2);
  const tailRoom = keep - headRoom;

  let headEnd = headRoom;
  const lastBreak = text.lastIndexOf("\n", headRoom - 1);
  if (headRoom > 0 && lastBreak >= 0 && lastBreak + 1 >= headRoom - headRoom * SNAP_SHARE) headEnd = lastBreak + 1;
  headEnd = pairSafeEnd(text, headEnd);

  let tailStart = text.length - tailRoom;
  const nextBreak = text.indexOf("\n", tailStart);
  if (tailRoom > 0 && nextBreak >= 0 && nextBreak + 1 <= tailStart + tailRoom * SNAP_SHARE) tailStart = nextBreak + 1;
  tailStart = pairSafeStart(text, tailStart);
  tailStart = Math.max(tailStart, headEnd);

  return {
    head: text.slice(0, headEnd),
    tail: text.slice(tailStart),
    omitted: tailStart - headEnd,
    omittedFrom: headEnd,
    tailFrom: tailStart,
  };
}

/** Attempts to shrink the room before settling for the frame alone. */
const FIT_ATTEMPTS = 6;

/**
 * The largest rendering `render(room)` that fits `budget` under `measure`. `room` is in
 * characters of content; the renderer adds its frame (notices). With a character budget the
 * first guess is exact up to line snapping; with tokens, the room shrinks by the measured
 * overshoot. If even `render(0)` does not fit, the rendering is clipped, so the result never
 * exceeds the budget.
 */
export function fitToBudget(
  render: (room: number) => string,
  budget: number,
  measure: Measure,
  firstRoom: number,
): string {
  let room = Math.max(0, Math.floor(firstRoom));
  for (let attempt = 0; attempt < FIT_ATTEMPTS && room > 0; attempt++) {
    const out = render(room);
    const size = measure.text(out);
    if (size <= budget) return out;
    const over = size - budget;
    const perChar = measure.unit === "chars" ? 1 : Math.max(size / Math.max(out.length, 1), 1e-6);
    room = Math.floor(Math.min(room * 0.9, room - over / perChar));
  }
  const bare = render(0);
  return measure.text(bare) <= budget ? bare : clip(bare, budget, measure);
}

/** The longest prefix of `text` that fits, found by bisection; "" when nothing does. */
function clip(text: string, budget: number, measure: Measure): string {
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (measure.text(text.slice(0, mid)) <= budget) low = mid;
    else high = mid - 1;
  }
  const out = text.slice(0, pairSafeEnd(text, low));
  return measure.text(out) <= budget ? out : "";
}
