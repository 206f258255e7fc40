// Real-host proof of the capacity report and of prepare's capacity refusals: the probe reports memory,
// the disk under the root, Agents and free ports; a new Agent is refused, retryably and before any
// change, when the port range is full or the disk under the root is nearly full.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { failureOf, type RuntimeSettings } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { accountOf, exists, fails, layoutOf, ok, owner, prepareArgs } from '@occ-ssh/test-support';

const RANGE = { start: 18800, end: 18802 };

describe('host capacity on a real host', () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({ name: 'hcap' });
  });
  after(() => host?.down());

  test('probe reports memory, the disk under the root, the Agents and the free ports; a full range refuses a new Agent retryably and changes nothing', async () => {
    const runtime: Partial<RuntimeSettings> = { gatewayPortRange: RANGE };
    const empty = (await ok(host, 'probe', {}, { runtime })).capacity;
    assert.ok(empty.memoryTotalBytes! > 0 && empty.memoryAvailableBytes! > 0 && empty.memoryAvailableBytes! <= empty.memoryTotalBytes!, JSON.stringify(empty));
    assert.ok(empty.rootFreeBytes! > 0 && empty.rootFreeInodes! > 0, JSON.stringify(empty));
    assert.deepEqual([empty.agents, empty.freePorts], [0, 3]);
    const agents = [owner('cap-a', 'cap'), owner('cap-b', 'cap'), owner('cap-c', 'cap')];
    for (const who of agents) {
      await ok(host, 'ensure-namespace', { namespace: who.namespace }, { runtime });
      await ok(host, 'prepare-revision', prepareArgs(who, 1), { runtime });
    }
    const full = (await ok(host, 'probe', {}, { runtime })).capacity;
    assert.deepEqual([full.agents, full.freePorts], [3, 0]);
    const extra = owner('cap-d', 'cap');
    await ok(host, 'ensure-namespace', { namespace: extra.namespace }, { runtime });
    const refused = await fails(host, 'prepare-revision', prepareArgs(extra, 1), { runtime });
    assert.equal(refused.code, 'capacity');
    assert.equal(failureOf(refused.code), 'retryable');
    assert.match(refused.message, /no free gateway port left in 18800-18802/);
    assert.equal(await exists(host, layoutOf(extra).dir), false);
    assert.notEqual((await host.exec(['getent', 'passwd', accountOf(extra)])).code, 0, 'no account was created');
    // A wider range takes it, with the same call.
    await ok(host, 'prepare-revision', prepareArgs(extra, 1), { runtime: { gatewayPortRange: { start: 18800, end: 18803 } } });
  });

  test('a nearly full disk under the root refuses a new Agent retryably and changes nothing; the probe reports it', async () => {
    const root = '/srv/occ-small';
    await host.run(['mkdir', '-p', root]);
    await host.run(['mount', '-t', 'tmpfs', '-o', 'size=64m,mode=0755', 'tmpfs', root]);
    try {
      const runtime: Partial<RuntimeSettings> = { root };
      const who = owner('cap-disk', 'cap-disk');
      await ok(host, 'ensure-namespace', { namespace: who.namespace }, { runtime });
      const capacity = (await ok(host, 'probe', {}, { runtime })).capacity;
      assert.ok(capacity.rootFreeBytes! <= 64 * 1024 * 1024, JSON.stringify(capacity));
      const refused = await fails(host, 'prepare-revision', prepareArgs(who, 1), { runtime });
      assert.deepEqual([refused.code, refused.path], ['capacity', root]);
      assert.match(refused.message, /MiB free, less than the 256 MiB a new Agent needs/);
      assert.notEqual((await host.exec(['getent', 'passwd', accountOf(who)])).code, 0, 'no account was created');
      assert.equal((await host.run(['find', root, '-path', '*/agents/*'])).trim(), '', 'no Agent directory was created');
    } finally {
      await host.exec(['umount', root]);
    }
  });
});
