import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { median, quantile, ratio, summarize } from './stats.js';

test('median of odd and even sample counts', () => {
  assert.equal(median([5, 1, 3]), 3);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
});

// Type 7 (linear between closest ranks). Other common definitions differ on these cases: nearest
// rank gives 10 for [10, 20] at 0.25 and 9 for 1..10 at 0.9; R's type 6 gives 10 and 9.9.
test('quantiles interpolate between closest ranks (type 7) and clamp q', () => {
  const samples = Array.from({ length: 101 }, (_, i) => i);
  assert.equal(quantile(samples, 0.99), 99);
  assert.equal(quantile(samples, 0.1), 10);
  assert.equal(quantile([10, 20], 0.25), 12.5);
  assert.equal(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9), 9.1);
  assert.equal(quantile([3, 1, 2], 0.75), 2.5);
  assert.equal(quantile([7], 2), 7);
  assert.equal(quantile([7, 9], -1), 7);
});

test('summarize rounds to a tenth and keeps n', () => {
  const s = summarize([1, 2, 3, 4]);
  assert.equal(s.n, 4);
  assert.equal(s.median, 2.5);
  assert.equal(s.min, 1);
  assert.equal(s.max, 4);
  assert.equal(s.mean, 2.5);
  assert.deepEqual(summarize([0.04, 10.06]), { n: 2, median: 5.1, p10: 1.0, p90: 9.1, p99: 10, min: 0, max: 10.1, mean: 5.1 });
});

test('summarize of no samples is NaN throughout, not an exception', () => {
  const s = summarize([]);
  assert.equal(s.n, 0);
  for (const key of ['median', 'p10', 'p90', 'p99', 'min', 'max', 'mean'] as const) assert.ok(Number.isNaN(s[key]), key);
});

// The published activation figures were computed from the samples stored beside them: they must
// come out the same, to the tenth, from these statistics.
test('the published activation summaries reproduce from their samples', () => {
  type Sample = { activationMs: number; processStartedAt: number; gatewayStartedAt: number; gatewayReadyAt: number; stopIssuedAt?: number };
  type Transport = { transport: string; samples: Sample[] } & Record<string, unknown>;
  const published = JSON.parse(readFileSync(new URL('../../../../bench/results/latest.json', import.meta.url), 'utf8')) as { activation: { transports: Transport[] } };
  const own = (s: Sample) => s.gatewayReadyAt - s.processStartedAt;
  const figures: Record<string, (s: Sample) => number> = {
    activationMs: (s) => s.activationMs,
    gatewayStartToReadyMs: own,
    overheadMs: (s) => s.activationMs - own(s),
    overheadFromRestartMs: (s) => s.activationMs - (s.gatewayReadyAt - (s.stopIssuedAt ?? s.processStartedAt)),
    overheadFromGatewayCodeMs: (s) => s.activationMs - (s.gatewayReadyAt - s.gatewayStartedAt),
  };
  assert.ok(published.activation.transports.length > 0);
  for (const t of published.activation.transports) {
    for (const [name, pick] of Object.entries(figures)) assert.deepEqual(summarize(t.samples.map(pick)), t[name], `${t.transport} ${name}`);
  }
});

test('ratio is NaN without a baseline', () => {
  assert.equal(ratio(3, 2), 1.5);
  assert.ok(Number.isNaN(ratio(1, 0)));
  assert.ok(Number.isNaN(ratio(Number.NaN, 1)));
});
