// Real-host proof that a new Agent's unit starts without a daemon-reload under the host lock: systemd
// reads a unit it has not loaded from its file, and any reload it then asks for (257 marks every unit)
// runs after the restart, outside the lock, so the host is left with nothing pending. Read from
// systemd's own journal lines and unit properties.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AgentOwner } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { activateArgs, layoutOf, ok, owner, prepareArgs } from '@occ-ssh/test-support';

describe("a new Agent's unit and systemd's reloads on a real host", { timeout: 10 * 60_000 }, () => {
  let host: TestHost;
  const first = owner('reload-a', 'shared');
  const second = { ...owner('reload-b', 'shared'), namespace: first.namespace };
  before(async () => {
    host = await startTestHost({ name: 'hreload' });
    await ok(host, 'ensure-namespace', { namespace: first.namespace });
    for (const who of [first, second]) for (const number of [1, 2]) await ok(host, 'prepare-revision', prepareArgs(who, number));
  });
  after(() => host?.down());

  /** systemd's reload lines (PID 1's "Reloading..."), with their monotonic times in µs. */
  async function reloads(): Promise<number[]> {
    const out = await host.run(['journalctl', '_PID=1', '-o', 'json', '--output-fields=MESSAGE', '--no-pager']);
    const lines = out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { MESSAGE?: unknown; __MONOTONIC_TIMESTAMP: string });
    return lines.filter((line) => typeof line.MESSAGE === 'string' && line.MESSAGE.startsWith('Reloading')).map((line) => Number(line.__MONOTONIC_TIMESTAMP));
  }
  const property = async (unit: string, name: string) => (await host.run(['systemctl', 'show', `--property=${name}`, '--value', unit])).trim();

  async function activateNew(who: AgentOwner): Promise<{ before: number; during: number[] }> {
    const unit = layoutOf(who).unitName;
    assert.equal(await property(unit, 'LoadState'), 'not-found', 'systemd has not loaded the new unit');
    const before = (await reloads()).length;
    await ok(host, 'activate-revision', activateArgs(prepareArgs(who, 1)));
    const during = (await reloads()).slice(before);
    const startedAt = Number(await property(unit, 'ExecMainStartTimestampMonotonic'));
    for (const at of during) assert.ok(at > startedAt, `a reload at ${at} µs came before the gateway's start at ${startedAt} µs, where the lock is held`);
    assert.equal((await host.exec(['systemctl', 'is-active', unit])).stdout.trim(), 'active');
    assert.equal((await host.exec(['systemctl', 'is-enabled', unit])).stdout.trim(), 'enabled');
    // Nothing is left pending: not for this unit, nor for one of the host's own.
    for (const other of [unit, 'ssh.service']) assert.equal(await property(other, 'NeedDaemonReload'), 'no', `${other} needs no reload`);
    return { before, during };
  }

  test('each new unit is started without a reload before its start, and leaves none pending', async (t) => {
    const version = (await host.run(['systemctl', '--version'])).split('\n')[0];
    for (const who of [first, second]) {
      const { during } = await activateNew(who);
      t.diagnostic(`${version}: ${layoutOf(who).unitName}: ${during.length} reload lines, all after its start`);
    }
  });

  test('a new revision of a loaded, unchanged unit reloads nothing; after a reload the units stay enabled and wanted', async () => {
    const before = (await reloads()).length;
    await ok(host, 'activate-revision', activateArgs(prepareArgs(first, 2)));
    assert.equal((await reloads()).length, before, 'no reload');
    await host.run(['systemctl', 'daemon-reload']);
    const wanted = await host.run(['systemctl', 'list-dependencies', '--plain', '--no-pager', 'multi-user.target']);
    for (const who of [first, second]) {
      const unit = layoutOf(who).unitName;
      assert.ok(wanted.includes(unit), `${unit} is wanted by multi-user.target`);
      assert.equal((await host.exec(['systemctl', 'is-active', unit])).stdout.trim(), 'active');
      assert.equal(await property(unit, 'NeedDaemonReload'), 'no');
    }
  });
});
