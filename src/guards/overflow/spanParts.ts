import type { PlanEntry } from "./plan.js";

/**
 * A dropped span is stored in parts of this many groups, aligned on the history's groups: a full
 * part holds the same messages at every later step, so it is stored once, and what the store
 * holds grows with the history, not with its square.
 */
export const GROUPS_PER_PART = 16;

/** `[from, to)` runs of a span's entries that share a part (`GROUPS_PER_PART` groups, aligned on group numbers). */
export function partsOf(entries: readonly PlanEntry[], from: number, to: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = from; i < to;) {
    const part = Math.floor(entries[i]!.group / GROUPS_PER_PART);
    let j = i + 1;
    while (j < to && Math.floor(entries[j]!.group / GROUPS_PER_PART) === part) j++;
    out.push([i, j]);
    i = j;
  }
  return out;
}

/** How many parts a dropped span of `groups` groups can be stored in, at most (however it is aligned). */
export function maxPartsOf(groups: number): number {
  return Math.ceil(groups / GROUPS_PER_PART) + 1;
}
