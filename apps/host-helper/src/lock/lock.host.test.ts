// Real-host proof of the host lock: who takes it, how long an operation waits for it, and that probe does not.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { namespaceLayout } from '@occ-ssh/markers';
import type { AgentOwner } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, accountOf, call, exists, ok, owner, prepareArgs, shell } from '@occ-ssh/test-support';

const LOCK = `${ROOT}/.compute-lock`;

describe('the host lock on a real host', () => {
  let host: TestHost;
  const ensure = (who: AgentOwner) => ok(host, 'ensure-namespace', { namespace: who.namespace });
  before(async () => {
    host = await startTestHost({ name: 'hlock' });
  });
  after(() => host?.down());

  const holdLock = async (seconds: number) => (await shell(host, `setsid flock ${LOCK} sleep ${seconds} </dev/null >/dev/null 2>&1 & echo $!`)).trim();
  const release = (group: string) => host.exec(['kill', '--', `-${group}`]);

  test('probe takes no lock; deleting an already-missing Namespace waits for and holds the lock while removing its leftover account', async () => {
    const orphan = owner('orphan', 'orphan');
    await ensure(orphan);
    await ok(host, 'prepare-revision', prepareArgs(orphan, 1));
    await host.run(['rm', '-rf', namespaceLayout(ROOT, orphan.namespace.id).dir]);
    const group = await holdLock(8);
    try {
      const probe = await call(host, 'probe', {});
      assert.equal(probe.line?.ok, true);
      assert.deepEqual(Object.keys(probe.line.timings), ['totalMs'], 'no lockWaitMs or lockHoldMs');
      const deletion = await call(host, 'delete-namespace', { namespace: orphan.namespace });
      assert.ok(deletion.line?.ok, JSON.stringify(deletion.line));
      assert.deepEqual(deletion.line.result, { treeExisted: false, agentsRemoved: 0, accountsRemoved: [accountOf(orphan)] });
      assert.ok((deletion.line.timings.lockWaitMs ?? 0) >= 1000, `waited ${deletion.line.timings.lockWaitMs} ms for the holder`);
      assert.equal(typeof deletion.line.timings.lockHoldMs, 'number');
    } finally {
      await release(group);
    }
    assert.equal((await host.exec(['getent', 'passwd', accountOf(orphan)])).code, 2);
  });

  test('lock acquisition gives up after 30 s as a retryable lock-timeout naming the lock, having changed nothing', async () => {
    const who = owner('lockwait', 'lockwait');
    const group = await holdLock(45);
    try {
      const outcome = await call(host, 'ensure-namespace', { namespace: who.namespace });
      assert.equal(outcome.line?.ok, false);
      assert.deepEqual([outcome.line.error.code, outcome.line.error.path], ['lock-timeout', LOCK]);
      assert.ok(outcome.ms >= 30_000 && outcome.ms < 40_000, `gave up after ${outcome.ms} ms`);
      assert.equal(await exists(host, namespaceLayout(ROOT, who.namespace.id).dir), false);
    } finally {
      await release(group);
    }
  });
});
