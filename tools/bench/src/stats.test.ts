import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median, quantile, ratio, summarize } from './stats.js';

test('median of odd and even sample counts', () => {
  assert.equal(median([5, 1, 3]), 3);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
});

test('quantiles interpolate between ranks and clamp q', () => {
  const samples = Array.from({ length: 101 }, (_, i) => i);
  assert.equal(quantile(samples, 0.99), 99);
  assert.equal(quantile(samples, 0.1), 10);
  assert.equal(quantile([10, 20], 0.25), 12.5);
  assert.equal(quantile([7], 2), 7);
});

test('summarize rounds to a tenth and keeps n', () => {
  const s = summarize([1, 2, 3, 4]);
  assert.equal(s.n, 4);
  assert.equal(s.median, 2.5);
  assert.equal(s.min, 1);
  assert.equal(s.max, 4);
  assert.equal(s.mean, 2.5);
});

test('ratio is NaN without a baseline', () => {
  assert.equal(ratio(3, 2), 1.5);
  assert.ok(Number.isNaN(ratio(1, 0)));
  assert.ok(Number.isNaN(ratio(Number.NaN, 1)));
});
