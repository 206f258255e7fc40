// The kill window follows the median of the latest measured runs of each operation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_DURATION_MS, RecentMedians } from './recent-medians.js';

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
});
