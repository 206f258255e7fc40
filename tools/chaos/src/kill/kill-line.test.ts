import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Rng } from '../campaign/rng.js';
import { BETWEEN_CHANGES_SHARE, killLine } from './kill-line.js';

const draws = (lines: number, n = 4000) => {
  const rng = new Rng(20240601);
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const line = killLine(rng, lines);
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return counts;
};

describe('killLine', () => {
  it('draws from the second line to the last, never outside', () => {
    for (const lines of [1, 2, 3, 4, 8, 30]) {
      const seen = [...draws(lines, 500).keys()];
      assert.ok(
        seen.every((line) => line >= Math.min(2, lines) && line <= lines),
        `${lines} lines: ${seen.join(',')}`,
      );
    }
    assert.deepEqual([...draws(1, 50).keys()], [1]);
    assert.deepEqual([...draws(2, 50).keys()], [2]);
  });

  it('of two changes, cuts between them (after the line that begins the first) in most draws, and still before the first and during the last', () => {
    const counts = draws(4);
    const share = (line: number) => (counts.get(line) ?? 0) / 4000;
    // 3 in 4 take line 3, and a third of the rest: 0.75 + 0.25 / 3.
    assert.ok(Math.abs(share(3) - (BETWEEN_CHANGES_SHARE + (1 - BETWEEN_CHANGES_SHARE) / 3)) < 0.03, `line 3: ${share(3)}`);
    assert.ok(share(2) > 0.05 && share(4) > 0.05, `line 2: ${share(2)}, line 4: ${share(4)}`);
  });

  it('of one change, draws every line alike: there is nothing between two changes', () => {
    const counts = draws(3);
    assert.ok(Math.abs((counts.get(2) ?? 0) / 4000 - 0.5) < 0.03);
    assert.ok(Math.abs((counts.get(3) ?? 0) / 4000 - 0.5) < 0.03);
  });
});
