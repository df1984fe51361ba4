/**
 * Counts of values in fixed buckets: bucket i holds values from `edges[i]` up to `edges[i + 1]`,
 * the last everything from its edge up. Fixed, so a million threads cost as little as ten.
 */
export interface Histogram {
  edges: readonly number[];
  counts: number[];
}

export function histogram(edges: readonly number[]): Histogram {
  return { edges, counts: edges.map(() => 0) };
}

export function countInto(h: Histogram, value: number): void {
  h.counts[bucketOf(h.edges, value)]!++;
}

/** The bucket holding `value` (values under the first edge go in the first bucket). */
export function bucketOf(edges: readonly number[], value: number): number {
  let low = 0;
  let high = edges.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (edges[mid]! <= value) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Where `value` lies along the buckets, in bucket widths from the first's left side: for a threshold line. */
export function positionOf(edges: readonly number[], value: number): number {
  const i = bucketOf(edges, value);
  const low = edges[i]!;
  const high = edges[i + 1];
  if (value <= low) return i;
  return high === undefined ? i + 0.5 : i + (value - low) / (high - low);
}
