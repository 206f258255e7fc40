// The mapping of the helper's answer to OCC's shape: every time on the controller's clock, an unreachable host an answer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError, DEPLOYMENT_CHECKS } from '@occ-ssh/protocol';
import { diagnoseDeployment, fromHost } from './deployment-diagnostics.js';

const observed = new Date('2026-12-04T00:00:10.000Z');

describe('deployment diagnostics in OCC shape', () => {
  it('places each check at the observation less the time the helper still ran after it; an unmade check has no time', () => {
    const answer = fromHost(
      'rev-1',
      {
        durationMs: 4000,
        checks: [
          { component: 'unit', check: 'active', state: 'failed', elapsedMs: 1000, code: 'UNIT_FAILED' },
          { component: 'gateway', check: 'ready', state: 'unknown', elapsedMs: null },
        ],
      },
      observed,
    );
    assert.deepEqual(answer, {
      revisionId: 'rev-1',
      observedAt: '2026-12-04T00:00:10.000Z',
      checks: [
        { component: 'host', check: 'reachable', state: 'succeeded', checkedAt: '2026-12-04T00:00:10.000Z' },
        { component: 'unit', check: 'active', state: 'failed', checkedAt: '2026-12-04T00:00:07.000Z', code: 'UNIT_FAILED' },
        { component: 'gateway', check: 'ready', state: 'unknown', checkedAt: null },
      ],
    });
  });

  it('a host not reached is an answer (host reachable failed, the rest unknown); any other failure is thrown', async () => {
    const unreached = await diagnoseDeployment('rev-1', () => Promise.reject(new ComputeError('timeout', 'no answer')));
    assert.equal(unreached.checks.length, DEPLOYMENT_CHECKS.length);
    assert.deepEqual(unreached.checks[0], { component: 'host', check: 'reachable', state: 'failed', checkedAt: unreached.observedAt, code: 'HOST_TIMEOUT' });
    assert.ok(unreached.checks.slice(1).every((check) => check.state === 'unknown' && check.checkedAt === null));
    await assert.rejects(
      diagnoseDeployment('rev-1', () => Promise.reject(new ComputeError('ownership', 'not ours'))),
      (error: ComputeError) => error.code === 'ownership',
    );
  });
});
