// Real-host proof that interruptions leave no partial file and no held lock, and retries converge.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentLayout, revisionLayout } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, activateArgs, call, ok, owner, prepareArgs, tempFiles } from '@occ-ssh/test-support';

describe('interruptions on a real host', () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({ name: 'hint' });
  });
  after(() => host?.down());

  test('a prepare cut off at any point leaves no partial file, and a retry succeeds', async () => {
    let killedMidway = 0;
    for (const [index, delay] of [150, 250, 320, 380, 450, 520, 600, 700].entries()) {
      const who = owner(`cut${index}`);
      await ok(host, 'ensure-namespace', { namespace: who.namespace });
      const args = prepareArgs(who, 1);
      const outcome = await call(host, 'prepare-revision', args, { killAfterMs: delay });
      if (outcome.killed && !outcome.line) killedMidway += 1;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.deepEqual(await tempFiles(host), []);
      const retry = await ok(host, 'prepare-revision', args);
      assert.equal(retry.ready, true);
      const layout = agentLayout(ROOT, UNIT_DIR, who.namespace.id, who.agent.id);
      assert.equal(await host.run(['cat', revisionLayout(layout.dir, args.revision.id).config]), args.configuration.document);
    }
    assert.ok(killedMidway > 0, 'at least one cut landed before the result');
  });

  test('the lock is free again after the helper is killed with SIGKILL while holding it', async () => {
    const who = owner('lock');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    // Activation queues its restart and waits without the lock; a stop of a gateway that ignores
    // SIGTERM holds it for the unit's whole stop timeout.
    const stubborn = prepareArgs(who, 1, { fixtureGateway: { ignoreSigterm: true } });
    await ok(host, 'prepare-revision', stubborn);
    await ok(host, 'activate-revision', activateArgs(stubborn));
    const pending = call(host, 'stop-revision', { owner: who, revision: stubborn.revision });
    let holder = '';
    for (let i = 0; i < 100 && !holder; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      holder = (await host.exec(['pgrep', '-f', '^flock --exclusive'])).stdout.trim();
    }
    assert.ok(holder, 'the helper took the lock');
    await host.run(['pkill', '-KILL', '-f', `^${host.nodePath} - `]);
    await pending;
    const started = Date.now();
    const result = await call(host, 'ensure-namespace', { namespace: owner('after').namespace });
    assert.equal(result.line?.ok, true);
    // A free lock is taken at once; one still held would be waited out to the 30-second lock wait.
    // Half of that, for the lock wait and for the whole call, leaves a loaded machine its margin.
    assert.ok((result.line?.timings.lockWaitMs ?? 99_999) < 15_000, `lock wait ${result.line?.timings.lockWaitMs} ms`);
    assert.ok(Date.now() - started < 15_000);
    assert.equal((await host.exec(['pgrep', '-f', '^flock --exclusive'])).code, 1, 'no lock holder is left behind');
  });
});
