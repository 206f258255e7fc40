// Order statistics for benchmark samples, from simple-statistics. Its quantile interpolates
// linearly between closest ranks (R's type 7, numpy's default): the definition every published
// figure was computed with, pinned in stats.test.ts. Where the library throws (no samples, q
// outside 0..1) these return NaN or clamp q, so one empty measurement does not end a run.
import { max, mean, min, quantile as quantileOf } from 'simple-statistics';

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
  return quantileOf(samples, Math.min(1, Math.max(0, q)));
}

export const median = (samples: readonly number[]): number => quantile(samples, 0.5);

/** Rounded to a tenth; every figure NaN when there are no samples. */
export function summarize(samples: readonly number[]): Summary {
  const round = (value: number) => Math.round(value * 10) / 10;
  const empty = samples.length === 0;
  return {
    n: samples.length,
    median: round(median(samples)),
    p10: round(quantile(samples, 0.1)),
    p90: round(quantile(samples, 0.9)),
    p99: round(quantile(samples, 0.99)),
    min: empty ? Number.NaN : round(min(samples)),
    max: empty ? Number.NaN : round(max(samples)),
    mean: empty ? Number.NaN : round(mean(samples)),
  };
}

/** a / b, rounded to two decimals; NaN when either side is missing. */
export function ratio(a: number, b: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return Number.NaN;
  return Math.round((a / b) * 100) / 100;
}
