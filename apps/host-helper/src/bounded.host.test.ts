// Real-host proof that the helper fails fast and closed: a caller that went away while the helper
// queued for the lock.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { namespaceLayout } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/tools';
import { ROOT, UNIT_DIR, call, exists, ok, owner } from './testing/remote.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TREE = `find ${ROOT} ${UNIT_DIR} -printf '%p %u %g %m %s %T@\\n' 2>/dev/null | sort | sha256sum; getent passwd | sha256sum`;

describe('bounded failure on a real host', () => {
  let host: TestHost;
  const sh = (script: string) => host.run(['sh', '-c', script]);
  const helperRunning = async () => (await host.exec(['pgrep', '-f', `^${host.nodePath} - `])).code === 0;
  const lockWaiters = async () => (await host.exec(['pgrep', '-f', '^flock --exclusive'])).stdout.trim();

  before(async () => {
    host = await startTestHost({ name: 'hbound' });
  });
  after(() => host?.down());

  test('a helper whose session closes while it waits for the lock exits at once and changes nothing', async () => {
    const who = owner('queued', 'queued');
    await ok(host, 'ensure-namespace', { namespace: owner('base', 'base').namespace });
    const holder = (await sh(`setsid flock ${ROOT}/.compute-lock sleep 60 </dev/null >/dev/null 2>&1 & echo $!`)).trim();
    try {
      const tree = await sh(TREE);
      const pending = call(host, 'ensure-namespace', { namespace: who.namespace }, { killAfterMs: 2500 });
      for (let i = 0; i < 40 && !(await lockWaiters()); i += 1) await sleep(50);
      assert.ok(await lockWaiters(), 'the helper queued for the held lock');
      const outcome = await pending;
      assert.equal(outcome.line, undefined, 'the caller went away before any result');
      const closedAt = Date.now();
      while ((await helperRunning()) && Date.now() - closedAt < 20_000) await sleep(100);
      const gone = Date.now() - closedAt;
      assert.equal(await helperRunning(), false);
      process.stderr.write(`# queued helper gone ${gone} ms after its session closed\n`);
      assert.ok(gone < 5000, `the helper lingered ${gone} ms after its session closed (the lock wait is 30 s)`);
      assert.equal(await lockWaiters(), '', 'no flock left queued for the lock');
      await host.exec(['kill', '--', `-${holder}`]);
      await sleep(1500);
      assert.equal(await sh(TREE), tree, 'nothing changed, even once the lock was free');
      assert.equal(await exists(host, namespaceLayout(ROOT, who.namespace.id).dir), false);
    } finally {
      await host.exec(['kill', '--', `-${holder}`]);
    }
  });
});
