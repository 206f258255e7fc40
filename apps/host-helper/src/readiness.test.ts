// The readiness poll's schedule (pure part of readiness.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pollDelay } from './readiness.js';

describe('pollDelay', () => {
  it('polls every 25 ms for the first 3 s, so readiness is seen within one short interval', () => {
    for (const elapsed of [0, 10, 500, 2999]) assert.equal(pollDelay(elapsed), 25, String(elapsed));
  });

  it('then backs off, never beyond 250 ms', () => {
    const later = [3000, 3400, 4000, 5000, 8000, 60_000].map(pollDelay);
    assert.deepEqual(later, [...later].sort((a, b) => a - b));
    assert.ok(later[1]! > 25);
    assert.equal(later.at(-1), 250);
    assert.ok(later.every((delay) => delay <= 250));
  });
});
