// Real-host proof that the helper fails fast and closed: a gateway that cannot start, a caller that
// went away while the helper queued for the lock, and a sibling Agent squatting the Agent's port.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { accountName, namespaceLayout } from '@occ-ssh/markers';
import type { AgentOwner } from '@occ-ssh/protocol';
import { squatterArgv, startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, activateArgs, call, exists, fails, helperRunning, layoutOf, ok, owner, prepareArgs, shell } from '@occ-ssh/test-support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TREE = `find ${ROOT} ${UNIT_DIR} -printf '%p %u %g %m %s %T@\\n' 2>/dev/null | sort | sha256sum; getent passwd | sha256sum`;

describe('bounded failure on a real host', () => {
  let host: TestHost;
  const uidOf = async (who: AgentOwner) => Number((await host.run(['id', '-u', accountName('openclaw', who.namespace.id, who.agent.id)])).trim());
  const lockWaiters = async () => (await host.exec(['pgrep', '-f', '^flock --exclusive'])).stdout.trim();

  before(async () => {
    host = await startTestHost({ name: 'hbound' });
  });
  after(() => host?.down());

  test('a gateway that exits at start fails activation within seconds, retryable, with its exit status and no log text', async () => {
    const who = owner('crash', 'crash');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const rev = prepareArgs(who, 1, { fixtureGateway: { exitAtStart: true } });
    await ok(host, 'prepare-revision', rev);
    const outcome = await call(host, 'activate-revision', activateArgs(rev, {}, 120_000));
    const line = outcome.line;
    assert.ok(line && !line.ok, 'activation failed');
    assert.equal(line.error.code, 'not-ready');
    assert.match(line.error.message, new RegExp(`^${layoutOf(who).unitName} (restarted \\d+ times without answering /readyz|failed \\([a-z-]+;) .*last exit: exit status 3\\)$`));
    assert.doesNotMatch(line.error.message, /fixture gateway|exitAtStart/, 'no journal text');
    assert.ok(outcome.ms < 40_000, `took ${outcome.ms} ms, not the 120 s readiness bound`);
    assert.ok(line.timings.lockHoldMs !== undefined && line.timings.lockHoldMs < 40_000, `held the lock ${line.timings.lockHoldMs} ms`);
    assert.equal(await exists(host, layoutOf(who).served), false);
    process.stderr.write(`# exit-at-start gateway: not-ready after ${outcome.ms} ms: ${line.error.message}\n`);
    await host.run(['systemctl', 'stop', layoutOf(who).unitName]);
  });

  test('a helper whose session closes while it waits for the lock exits at once and changes nothing', async () => {
    const who = owner('queued', 'queued');
    await ok(host, 'ensure-namespace', { namespace: owner('base', 'base').namespace });
    const holder = (await shell(host, `setsid flock ${ROOT}/.compute-lock sleep 60 </dev/null >/dev/null 2>&1 & echo $!`)).trim();
    try {
      const tree = await shell(host, TREE);
      // The client is killed once the helper is seen queued, not after a time an idle host needs to get there.
      let client: number | undefined;
      const pending = call(host, 'ensure-namespace', { namespace: who.namespace }, { onSpawn: (pid) => (client = pid) });
      for (let i = 0; i < 300 && !(await lockWaiters()); i += 1) await sleep(100);
      assert.ok(await lockWaiters(), 'the helper queued for the held lock');
      assert.ok(client !== undefined, 'the ssh client runs');
      process.kill(client, 'SIGKILL');
      const outcome = await pending;
      assert.equal(outcome.line, undefined, 'the caller went away before any result');
      const closedAt = Date.now();
      while ((await helperRunning(host)) && Date.now() - closedAt < 20_000) await sleep(100);
      const gone = Date.now() - closedAt;
      assert.equal(await helperRunning(host), false);
      process.stderr.write(`# queued helper gone ${gone} ms after its session closed\n`);
      // The helper stops within a heartbeat or two; half the 30-second lock wait leaves a loaded machine its margin.
      assert.ok(gone < 15_000, `the helper lingered ${gone} ms after its session closed (the lock wait is 30 s)`);
      assert.equal(await lockWaiters(), '', 'no flock left queued for the lock');
      await host.exec(['kill', '--', `-${holder}`]);
      await sleep(1500);
      assert.equal(await shell(host, TREE), tree, 'nothing changed, even once the lock was free');
      assert.equal(await exists(host, namespaceLayout(ROOT, who.namespace.id).dir), false);
    } finally {
      await host.exec(['kill', '--', `-${holder}`]);
    }
  });

  /** A fixture gateway outside any Agent unit, as `uid`, answering /readyz on `port`. */
  async function squat(uid: number, port: number): Promise<void> {
    await host.run(squatterArgv('occ-squatter', uid, port));
    // Bounded by the squatter's start-up on a loaded machine, not by a guess at it; a squatter that never answers fails here.
    const answers = async () => (await host.exec(['curl', '-sf', '-o', '/dev/null', `http://127.0.0.1:${port}/readyz`])).code === 0;
    for (let i = 0; i < 600 && !(await answers()); i += 1) await sleep(100);
    assert.ok(await answers(), `the squatter never answered on port ${port}`);
    // The answer must be the squatter's: one that lost the port to a gateway has exited.
    assert.equal((await host.exec(['systemctl', 'is-active', 'occ-squatter'])).stdout.trim(), 'active', 'the squatter holds the port');
  }

  test("a sibling Agent listening on the Agent's port is never taken for its gateway", async () => {
    const a = owner('victim', 'squat');
    const b = { ...owner('squatter', 'squat'), namespace: a.namespace };
    await ok(host, 'ensure-namespace', { namespace: a.namespace });
    const [a1, a2, b1] = [prepareArgs(a, 1), prepareArgs(a, 2), prepareArgs(b, 1)];
    const { port } = await ok(host, 'prepare-revision', a1);
    await ok(host, 'prepare-revision', b1);
    await ok(host, 'activate-revision', activateArgs(a1));
    await ok(host, 'prepare-revision', a2);
    // A stops (a crash, an operator); B's account takes A's port and answers /readyz like a gateway.
    await host.run(['systemctl', 'stop', layoutOf(a).unitName]);
    const squatterUid = await uidOf(b);
    await shell(host, `echo '{}' > /etc/occ-squat.json && chmod 644 /etc/occ-squat.json`);
    await squat(squatterUid, port);
    try {
      const error = await fails(host, 'activate-revision', activateArgs(a2));
      assert.equal(error.code, 'not-ready');
      assert.match(error.message, new RegExp(`^127\\.0\\.0\\.1:${port} is held by UID ${squatterUid}, not by the Agent's account \\(UID ${await uidOf(a)}\\)`));
      assert.equal(await exists(host, layoutOf(a).served), false, 'the squatter was not recorded as served');
    } finally {
      await host.exec(['systemctl', 'stop', 'occ-squatter']);
    }
    // The Agent's own account, but a process outside its unit: not its gateway either. The refused
    // activation left A's unit restarting (Restart=always): stopped first, or its gateway could take
    // the port back between the two squatters and answer for the second.
    const ownUid = await uidOf(a);
    await host.run(['systemctl', 'stop', layoutOf(a).unitName]);
    await squat(ownUid, port);
    try {
      const error = await fails(host, 'activate-revision', activateArgs(a2));
      assert.equal(error.code, 'not-ready');
      assert.equal(error.message, `127.0.0.1:${port} is held by the Agent's account (UID ${ownUid}) but by no process of ${layoutOf(a).unitName}`);
      assert.equal(await exists(host, layoutOf(a).served), false);
    } finally {
      await host.exec(['systemctl', 'stop', 'occ-squatter']);
    }
    const retry = await ok(host, 'activate-revision', activateArgs(a2));
    assert.ok(retry.readyMs > 0);
    assert.equal((JSON.parse(await host.run(['cat', layoutOf(a).served])) as { revisionId: string }).revisionId, a2.revision.id);
  });

  test('inventory does not report an Agent ready while another account also listens on its port', async () => {
    const a = owner('shared', 'inv');
    const b = { ...owner('lurker', 'inv'), namespace: a.namespace };
    await ok(host, 'ensure-namespace', { namespace: a.namespace });
    const [a1, b1] = [prepareArgs(a, 1), prepareArgs(b, 1)];
    const { port } = await ok(host, 'prepare-revision', a1);
    await ok(host, 'prepare-revision', b1);
    await ok(host, 'activate-revision', activateArgs(a1));
    const readyOf = async () => (await ok(host, 'inventory', {})).namespaces.flatMap((ns) => ns.agents).find((x) => x.agentId === a.agent.id)?.ready;
    assert.equal(await readyOf(), true);
    // The gateway keeps 127.0.0.1:<port> and answers /readyz; a sibling's account takes [::1]:<port>.
    await host.run(['systemd-run', '--unit=occ-lurker', '--collect', `--uid=${await uidOf(b)}`, host.nodePath, '-e', `require('net').createServer().listen(${port}, '::1')`]);
    try {
      for (let i = 0; i < 50 && (await host.exec(['sh', '-c', `ss -Hltn 'sport = :${port}' | grep -q '::1'`])).code !== 0; i += 1) await sleep(100);
      assert.equal(await readyOf(), false);
    } finally {
      await host.exec(['systemctl', 'stop', 'occ-lurker']);
    }
    assert.equal(await readyOf(), true);
  });
});
