// Order statistics for benchmark samples: medians and percentiles by linear interpolation.

export interface Summary {
  n: number;
  median: number;
  p10: number;
  p90: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}

/** The q-quantile (0..1) of the samples, interpolating between closest ranks; NaN when empty. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const position = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower]!;
  const high = sorted[upper]!;
  return low + (high - low) * (position - lower);
}

export const median = (samples: readonly number[]): number => quantile(samples, 0.5);

export function summarize(samples: readonly number[]): Summary {
  const round = (value: number) => Math.round(value * 10) / 10;
  const mean = samples.length === 0 ? Number.NaN : samples.reduce((sum, value) => sum + value, 0) / samples.length;
  return {
    n: samples.length,
    median: round(median(samples)),
    p10: round(quantile(samples, 0.1)),
    p90: round(quantile(samples, 0.9)),
    p99: round(quantile(samples, 0.99)),
    min: round(Math.min(...samples)),
    max: round(Math.max(...samples)),
    mean: round(mean),
  };
}

/** a / b, rounded to two decimals; NaN when either side is missing. */
export function ratio(a: number, b: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return Number.NaN;
  return Math.round((a / b) * 100) / 100;
}
