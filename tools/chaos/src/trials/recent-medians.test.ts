// The kill window follows the median of the latest measured runs of each operation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_DURATION_MS, progressLinesOf, RecentMedians } from './recent-medians.js';

describe('RecentMedians', () => {
  it('uses the table until a run was measured', () => {
    assert.equal(new RecentMedians().estimate('activate-revision'), DEFAULT_DURATION_MS['activate-revision']);
    assert.equal(new RecentMedians().estimate('something-else'), 3000);
  });

  it('follows the median of the latest seven runs', () => {
    const model = new RecentMedians();
    for (const ms of [100, 900, 300]) model.observe('prepare-revision', ms);
    assert.equal(model.estimate('prepare-revision'), 300);
    for (let i = 0; i < 7; i += 1) model.observe('prepare-revision', 5000);
    assert.equal(model.estimate('prepare-revision'), 5000, 'old runs age out');
    assert.equal(model.snapshot()['prepare-revision'], 5000);
  });

  it('kills are drawn among the operation’s own progress lines: the same on a slow machine as on a fast one', () => {
    // retire-revision of a revision that is not current: two changes. A slow machine's run printed
    // three timer beats besides; the draw range is still the two checks and the two changes.
    assert.equal(progressLinesOf(2, 7), 4);
    assert.equal(progressLinesOf(2, 4), 4);
    // A fast run whose check line was skipped: never a line the run does not print.
    assert.equal(progressLinesOf(2, 3), 3);
    const model = new RecentMedians();
    for (const printed of [7, 5, 9]) model.observe('retire-revision#6', progressLinesOf(2, printed));
    assert.equal(model.estimate('retire-revision#6'), 4);
  });
});
