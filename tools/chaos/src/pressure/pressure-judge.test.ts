// Judging the host-pressure attacks: each target is met by a clean result, missed by the outcome it
// guards (a sibling held by the removal, a slow or failed redeploy, a stopped process left behind, a
// slow or failing /readyz under the flood), and missed by an attack that did not land. Bounds are
// relative to the idle figures, so the same outcome on a machine twice as slow is judged the same.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { call, cleanPressure } from './pressure-fixture.js';
import { boundFor, latencySample, PRESSURE_BOUNDS, pressureTargets } from './pressure-judge.js';
import type { PressureResults } from '../hostile-tenants/tenant-results.js';

const missed = (result: PressureResults) =>
  pressureTargets(result)
    .filter((target) => !target.met)
    .map((target) => target.name.split(':')[0]);

describe('host-pressure targets', () => {
  it('a clean result meets all three; a result with none of them misses all three', () => {
    assert.deepEqual(missed(cleanPressure()), []);
    assert.deepEqual(missed({}), ['planted names', 'the stopper', 'memfd journal flood']);
    assert.ok(pressureTargets({}).every((target) => target.detail === 'did not run'));
  });

  it('planted names: a sibling stop held by the removal misses, as on a host that removes under the lock', () => {
    const held = cleanPressure();
    // Measured on main: the sibling's stop waited out the removal.
    held.planted!.stop = call('calm', 'stop-revision', 8400);
    assert.deepEqual(missed(held), ['planted names']);
    assert.match(pressureTargets(held)[0]!.detail, /during: calm stop-revision ok in 8\.4 s .*bound 2\.6 s/);
    const failed = cleanPressure();
    failed.planted!.stop = call('calm', 'stop-revision', 30_100, { ok: false, code: 'lock-timeout', outcome: 'lock-timeout: held' });
    assert.deepEqual(missed(failed), ['planted names']);
  });

  it('planted names: the bound follows the idle stop (x3, at least + 2 s), so a slower machine is judged alike', () => {
    assert.equal(boundFor(600, PRESSURE_BOUNDS.stopRatio, PRESSURE_BOUNDS.stopSlackMs), 2600);
    assert.equal(boundFor(1500, PRESSURE_BOUNDS.stopRatio, PRESSURE_BOUNDS.stopSlackMs), 4500);
    const slow = cleanPressure();
    slow.planted!.idleStop = call('calm', 'stop-revision', 1500);
    slow.planted!.stop = call('calm', 'stop-revision', 4400);
    assert.deepEqual(missed(slow), []);
    slow.planted!.stop = call('calm', 'stop-revision', 4600);
    assert.deepEqual(missed(slow), ['planted names']);
  });

  it('planted names: an attack that did not land, or could not run, proves nothing and misses', () => {
    const late = cleanPressure();
    late.planted!.landed = false;
    assert.deepEqual(missed(late), ['planted names']);
    assert.match(pressureTargets(late)[0]!.detail, /did not land/);
    const broken = cleanPressure();
    broken.planted = { names: 200_000, landed: false, problems: ['attack could not run: the gateway did not finish planting within 100 s'] };
    assert.deepEqual(missed(broken), ['planted names']);
    assert.match(pressureTargets(broken)[0]!.detail, /nothing planted \(of 200000\).*could not run/);
  });

  it('the stopper: a redeploy past the bound, a failed one, a stray or a stopped process left each miss', () => {
    const slow = cleanPressure();
    // Measured on main: 25.5 s, a frozen child waiting out its bound.
    slow.stopper!.redeploy = call('stopper', 'redeploy', 25_500);
    const failed = cleanPressure();
    failed.stopper!.redeploy = call('stopper', 'redeploy', 4000, { ok: false, code: 'host-command', outcome: 'host-command: du' });
    const stray = cleanPressure();
    stray.stopper!.strays = ['4242 T du -s -x --block-size=1 /home/x/.cache'];
    const left = cleanPressure();
    left.stopper!.leftAfterStop = ['4242 T du -s -x --block-size=1 /home/x/.cache'];
    for (const result of [slow, failed, stray, left]) assert.deepEqual(missed(result), ['the stopper']);
    assert.match(pressureTargets(left)[1]!.detail, /1 left once its unit stopped \(4242 T du/);
    // 3x 2.5 s is 7.5 s, less than 2.5 + 10 s: the bound is 12.5 s.
    assert.match(pressureTargets(slow)[1]!.detail, /bound 12\.5 s/);
  });

  it('the journal flood: p99 over the bound, a failed request, or a flood that never started each miss', () => {
    const slow = cleanPressure();
    slow.flood!.flooded = { requests: 120, failed: 0, p50: 80, p99: 2400, max: 5000 };
    const failing = cleanPressure();
    failing.flood!.flooded = { ...failing.flood!.flooded!, failed: 2 };
    const quiet = cleanPressure();
    quiet.flood!.entriesStarted = 0;
    quiet.flood!.entriesSent = 0;
    for (const result of [slow, failing, quiet]) assert.deepEqual(missed(result), ['memfd journal flood']);
    assert.match(pressureTargets(quiet)[2]!.detail, /did not land/);
    // 5x 3.4 ms is 17 ms, less than 3.4 + 100 ms: the bound is 103.4 ms.
    assert.match(pressureTargets(slow)[2]!.detail, /bound 103\.4 ms/);
  });

  it('latencies: nearest-rank percentiles, a failed request kept among them', () => {
    const times = Array.from({ length: 200 }, (_, i) => i + 1);
    assert.deepEqual(latencySample(times, 1), { requests: 200, failed: 1, p50: 100, p99: 198, max: 200 });
    assert.deepEqual(latencySample([5]), { requests: 1, failed: 0, p50: 5, p99: 5, max: 5 });
    assert.deepEqual(latencySample([]), { requests: 0, failed: 0, p50: 0, p99: 0, max: 0 });
  });
});
