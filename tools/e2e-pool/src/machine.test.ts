import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuTimes } from './machine.js';

describe('cpuTimes', () => {
  it('counts idle and iowait as not busy, and everything else of the eight fields as busy', () => {
    const stat = 'cpu  100 5 50 800 20 3 2 10 0 0\ncpu0 50 2 25 400 10 1 1 5 0 0\nintr 1\n';
    assert.deepEqual(cpuTimes(stat), { busy: 170, total: 990 });
  });

  it('reads this machine: some time has passed, and busy is within it', () => {
    const { busy, total } = cpuTimes();
    assert.ok(total > 0 && busy >= 0 && busy <= total, `${busy} of ${total}`);
  });
});
