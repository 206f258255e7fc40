// The served check on a host where a cut helper's stop is still on its way: a gateway listed active
// that stops while it is probed is not a served gateway that runs unready.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Entry, UnitInfo } from '../host/listing.js';
import { servedReady, type Probes, type UnitNow } from './ready.js';

const AGENT = 'namespaces/0123456789ab/agents/abcdef012345';
const UNIT = 'openclaw-enterprise-gateway-abcdef012345.service';
const entries: Entry[] = [{ path: `${AGENT}/served.json`, type: 'file', uid: 0, gid: 0, mode: 0o600, size: 20, text: '{"port":18800}' }];
const listed: UnitInfo[] = [{ name: UNIT, type: 'file', uid: 0, head: '', activeState: 'active', unitFileState: 'enabled' }];

/** A host whose gateway answers as `answers` says, and whose unit reads each of `states` in turn (the last one from then on). */
function host(answers: (probe: number) => boolean, states: UnitNow[]): Probes & { probes: number; reads: string[] } {
  const fake = {
    probes: 0,
    reads: [] as string[],
    probe: () => Promise.resolve(answers(fake.probes++)),
    unitNow: (unit: string) => {
      fake.reads.push(unit);
      return Promise.resolve(states[Math.min(fake.reads.length - 1, states.length - 1)]!);
    },
    sleep: () => Promise.resolve(),
  };
  return fake;
}

describe('the served check', () => {
  it('a gateway that answers is ready, and its unit is not read again', async () => {
    const fake = host(() => true, []);
    assert.deepEqual(await servedReady(entries, listed, fake), { ready: { '18800': true }, stopped: [] });
    assert.deepEqual(fake.reads, []);
  });

  it('a gateway whose unit a stop job took down while it was probed is stopped, not unready', async () => {
    // Listed active; the stop the cut helper handed to systemd runs while the checker probes.
    const fake = host(
      () => false,
      [
        { activeState: 'deactivating', jobPending: true },
        { activeState: 'inactive', jobPending: false },
      ],
    );
    assert.deepEqual(await servedReady(entries, listed, fake), { ready: {}, stopped: [18800] });
    assert.deepEqual(fake.reads, [UNIT, UNIT]);
  });

  it('a gateway already stopped when read again is stopped', async () => {
    const fake = host(() => false, [{ activeState: 'inactive', jobPending: false }]);
    assert.deepEqual(await servedReady(entries, listed, fake), { ready: {}, stopped: [18800] });
  });

  it('a gateway whose unit still runs with nothing queued and never answers is unready', async () => {
    const fake = host(() => false, [{ activeState: 'active', jobPending: false }]);
    assert.deepEqual(await servedReady(entries, listed, fake), { ready: { '18800': false }, stopped: [] });
    assert.equal(fake.probes, 20);
  });

  it('a gateway restarted by a queued job is probed again once the job is done', async () => {
    const fake = host(
      (n) => n >= 20,
      [
        { activeState: 'active', jobPending: true },
        { activeState: 'active', jobPending: false },
      ],
    );
    assert.deepEqual(await servedReady(entries, listed, fake), { ready: { '18800': true }, stopped: [] });
    const unready = host(
      () => false,
      [
        { activeState: 'active', jobPending: true },
        { activeState: 'active', jobPending: false },
      ],
    );
    assert.deepEqual(await servedReady(entries, listed, unready), { ready: { '18800': false }, stopped: [] });
  });

  it('a unit listed inactive is not probed', async () => {
    const fake = host(() => false, []);
    assert.deepEqual(await servedReady(entries, [{ ...listed[0]!, activeState: 'inactive' }], fake), { ready: {}, stopped: [] });
    assert.equal(fake.probes, 0);
  });
});
