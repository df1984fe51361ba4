/** Small timing helpers shared by the benches: warm up, then sample many times. */

export function nowMicros(): number {
  return Number(process.hrtime.bigint()) / 1000;
}

export interface Sample {
  p50: number;
  p95: number;
  mean: number;
}

export function summarise(samples: number[]): Sample {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p95: at(0.95), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

/** Times `fn` `iterations` times after `warmup` untimed runs; microseconds per run. */
export async function measure(
  fn: () => unknown,
  iterations: number,
  warmup = Math.ceil(iterations / 10),
): Promise<Sample> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = nowMicros();
    await fn();
    samples.push(nowMicros() - start);
  }
  return summarise(samples);
}

export const fmt = (micros: number) =>
  micros >= 1000 ? `${(micros / 1000).toFixed(2)} ms` : `${micros.toFixed(1)} µs`;

export function verdict(ok: boolean): string {
  return ok ? "✅" : "❌";
}

/**
 * How far the median of `values` could move by chance: the central `level` of the medians of
 * `resamples` resamples with replacement (a bootstrap), from a fixed seed so a run's report is
 * reproducible from its rounds.
 */
export function medianInterval(values: readonly number[], level = 0.95, resamples = 2000): [number, number] {
  let seed = 0x9e3779b9;
  // mulberry32: a small seeded generator, enough to pick resamples.
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const medians: number[] = [];
  const resample = new Array<number>(values.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < values.length; i++) resample[i] = values[Math.floor(random() * values.length)]!;
    resample.sort((a, b) => a - b);
    medians.push(resample[values.length >> 1]!);
  }
  medians.sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  return [medians[Math.floor(tail * resamples)]!, medians[Math.ceil((1 - tail) * resamples) - 1]!];
}
