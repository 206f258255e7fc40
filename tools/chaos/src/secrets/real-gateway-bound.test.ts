// The real gateway always gets the most an activation may wait, and a native part that fails is
// reported with the machine's figures.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/controller';
import { activateWithRetries, describeStart, realGatewayStart } from './real-gateway-bound.js';

describe('the real gateway’s start', () => {
  it('gets 120 s whatever was measured, and is described with the figures', () => {
    const start = realGatewayStart(1179, 15.56);
    assert.deepEqual(start, { versionMs: 1179, load: 15.6, readinessMs: 120_000 });
    assert.equal(describeStart(start), "the real OpenClaw's --version took 1179 ms here at load average 15.6; its gateway had 120 s, the most an activation may wait, in each of 3 activations");
  });

  it('activates again after a retryable not-ready, at most three times, and never after any other failure', async () => {
    const notReady = () => new ComputeError('not-ready', 'did not answer /readyz');
    const calls = (outcomes: (Error | 'ok')[]) => {
      let n = 0;
      const retried: number[] = [];
      const activate = async () => {
        const outcome = outcomes[n++]!;
        if (outcome === 'ok') return n;
        throw outcome;
      };
      return { run: () => activateWithRetries(activate, (attempt) => retried.push(attempt)), retried, count: () => n };
    };
    const second = calls([notReady(), 'ok']);
    assert.equal(await second.run(), 2);
    assert.deepEqual(second.retried, [1]);
    const never = calls([notReady(), notReady(), notReady(), 'ok']);
    await assert.rejects(never.run(), /readyz/);
    assert.equal(never.count(), 3);
    const other = calls([new ComputeError('ownership', 'not ours'), 'ok']);
    await assert.rejects(other.run(), /not ours/);
    assert.equal(other.count(), 1);
  });
});
