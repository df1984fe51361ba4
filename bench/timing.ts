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
