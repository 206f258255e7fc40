// The seeded PRNG: same seed, same stream; forks are stable and independent; ranges hold.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Rng } from './rng.js';

const take = (rng: Rng, n: number) => Array.from({ length: n }, () => rng.nextUint32());

describe('Rng', () => {
  it('replays exactly from its seed', () => {
    assert.deepEqual(take(new Rng(42), 100), take(new Rng(42), 100));
    assert.notDeepEqual(take(new Rng(42), 10), take(new Rng(43), 10));
  });

  it('gives the published campaign seed the stream it was run with', () => {
    // chaos/results/latest.json replays from seed 20240601 only while these stay: a changed
    // generator or fork derivation fails here, not silently in a re-run's different plan.
    assert.deepEqual(take(new Rng(20240601), 4), [1682434128, 2614547273, 2387850999, 887086894]);
    assert.deepEqual(take(new Rng(20240601).fork('kill'), 4), [1148209663, 4079937158, 3530254328, 824473059]);
  });

  it('a fork depends only on the seed and its label', () => {
    const a = new Rng(7);
    a.next();
    a.next();
    assert.deepEqual(take(a.fork('kill'), 20), take(new Rng(7).fork('kill'), 20), 'drawing from the parent does not move its forks');
    assert.notDeepEqual(take(new Rng(7).fork('kill'), 20), take(new Rng(7).fork('races'), 20));
    assert.notDeepEqual(take(new Rng(7).fork('kill'), 20), take(new Rng(8).fork('kill'), 20));
  });

  it('seed 0 and the largest seed work', () => {
    assert.equal(
      take(new Rng(0), 50).some((v) => v !== 0),
      true,
    );
    assert.equal(
      take(new Rng(0xffffffff), 50).some((v) => v !== 0),
      true,
    );
  });

  it('refuses seeds that are not 32-bit unsigned integers', () => {
    for (const seed of [-1, 1.5, 2 ** 32, Number.NaN]) assert.throws(() => new Rng(seed), RangeError);
  });

  it('next() is in [0,1) and roughly uniform', () => {
    const rng = new Rng(1);
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 20_000; i += 1) {
      const v = rng.next();
      assert.ok(v >= 0 && v < 1);
      buckets[Math.floor(v * 10)]! += 1;
    }
    for (const count of buckets) assert.ok(count > 1700 && count < 2300, `bucket ${count}`);
  });

  it('int() covers both ends and nothing outside', () => {
    const rng = new Rng(3);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i += 1) {
      const v = rng.int(-2, 2);
      assert.ok(Number.isInteger(v) && v >= -2 && v <= 2);
      seen.add(v);
    }
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      [-2, -1, 0, 1, 2],
    );
    assert.throws(() => rng.int(3, 2), RangeError);
  });

  it('uniform() stays in its interval', () => {
    const rng = new Rng(9);
    for (let i = 0; i < 1000; i += 1) {
      const v = rng.uniform(250, 1250);
      assert.ok(v >= 250 && v < 1250);
    }
  });

  it('shuffle() is a permutation and reproducible', () => {
    const items = Array.from({ length: 30 }, (_, i) => i);
    const a = new Rng(5).shuffle(items);
    assert.deepEqual(
      [...a].sort((x, y) => x - y),
      items,
    );
    assert.deepEqual(a, new Rng(5).shuffle(items));
    assert.notDeepEqual(a, items);
  });

  it('pick(), chance() and hex()', () => {
    const rng = new Rng(11);
    assert.throws(() => rng.pick([]), RangeError);
    assert.equal(rng.pick(['only']), 'only');
    assert.equal(rng.chance(0), false);
    assert.equal(rng.chance(1), true);
    assert.match(rng.hex(13), /^[0-9a-f]{13}$/);
    assert.equal(new Rng(11).hex(16), new Rng(11).hex(16));
  });

  it('a known stream stays the same across versions (golden values)', () => {
    // A change here silently changes what every recorded seed replays.
    assert.deepEqual(take(new Rng(20_240_601), 3), [1682434128, 2614547273, 2387850999]);
    assert.equal(new Rng(1).fork('kill').hex(8), '69cab382');
  });
});
