/**
 * How often each structured value (an `ArgsShape` leaf) occurs among a tool's recent calls: a
 * call joins and leaves the window with its leaves, and one lookup per leaf tells whether a new
 * call shares any (NearRepeats.mayRepeat, FreshCalls).
 */
export type LeafCounts = Map<string, number>;

/** One more call with `leaves` in the window. */
export function countLeaves(counts: LeafCounts, leaves: Iterable<string>): void {
  for (const leaf of leaves) counts.set(leaf, (counts.get(leaf) ?? 0) + 1);
}

/** A call with `leaves`, counted before, out of the window. */
export function uncountLeaves(counts: LeafCounts, leaves: Iterable<string>): void {
  for (const leaf of leaves) {
    const left = counts.get(leaf)! - 1;
    if (left === 0) counts.delete(leaf);
    else counts.set(leaf, left);
  }
}
