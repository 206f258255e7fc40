// The controller-wide bound on a real host: a burst of operations never has more `ssh` clients in
// flight than `maxConcurrentOperations`, every operation of the burst succeeds, and without it the
// per-host bound is the one that binds. Counted as the operator would: the controller's ssh children.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { SshComputeDriver } from '../driver.js';
import { configFor, memoryLogger, type HostInfo } from '../../test/hosts.js';

const NAMESPACES = ['stable', 'canary', 'edge', 'batch', 'lab', 'ops'];
const BURST = 18;

/** The `ssh` clients this process has running now (system-ssh: one per helper call in flight). */
const sshChildren = () => Number(spawnSync('pgrep', ['-c', '-x', '-P', String(process.pid), 'ssh'], { encoding: 'utf8' }).stdout.trim() || 0);

/** Runs a burst of ensureNamespace calls over the Namespaces, sampling the ssh clients every 5 ms; returns the most seen at once. */
async function burst(driver: SshComputeDriver, tag: string): Promise<number> {
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, sshChildren())), 5);
  try {
    const results = await Promise.all(
      Array.from({ length: BURST }, (_, i) => {
        const name = NAMESPACES[i % NAMESPACES.length]!;
        return driver.ensureNamespace({ id: `ns-${tag}-${name}`, name });
      }),
    );
    assert.deepEqual(
      results.filter((result) => !result.namespaceReady),
      [],
    );
  } finally {
    clearInterval(sampler);
  }
  return peak;
}

describe('the controller-wide bound under a burst', { timeout: 10 * 60_000 }, () => {
  let host: TestHost;
  let hosts: Record<string, HostInfo>;
  before(async () => {
    host = await startTestHost({ name: 'cbound' });
    hosts = Object.fromEntries(NAMESPACES.map((name) => [name, host]));
  });
  after(() => host?.down());

  test('at most maxConcurrentOperations ssh clients at once, the bound reached, and every operation done', async (t) => {
    const configuration = { ...configFor(hosts, { transport: 'system-ssh' }), maxConcurrentOperations: 2 };
    const driver = new SshComputeDriver({ configuration, logger: memoryLogger().logger });
    const peak = await burst(driver, 'bounded');
    t.diagnostic(`${BURST} operations with maxConcurrentOperations 2 (4 per host): at most ${peak} ssh clients at once`);
    assert.equal(peak, 2);
  });

  test('with the default bound, the per-host one (4) is what binds', async (t) => {
    const configuration = configFor(hosts, { transport: 'system-ssh' });
    assert.equal(configuration.maxConcurrentOperations, 64);
    const driver = new SshComputeDriver({ configuration, logger: memoryLogger().logger });
    const peak = await burst(driver, 'default');
    t.diagnostic(`${BURST} operations with the default bound (4 per host): at most ${peak} ssh clients at once`);
    assert.equal(peak, 4);
  });
});
