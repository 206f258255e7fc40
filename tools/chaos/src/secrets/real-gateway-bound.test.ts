// The real gateway always gets the most an activation may wait, and a native part that fails is
// reported with the machine's figures.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeStart, realGatewayStart } from './real-gateway-bound.js';

describe('the real gateway’s start', () => {
  it('gets 120 s whatever was measured, and is described with the figures', () => {
    const start = realGatewayStart(1179, 15.56);
    assert.deepEqual(start, { versionMs: 1179, load: 15.6, readinessMs: 120_000 });
    assert.equal(describeStart(start), "the real OpenClaw's --version took 1179 ms here at load average 15.6; its gateway had 120 s, the most an activation may wait");
  });
});
