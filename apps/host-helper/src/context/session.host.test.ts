// Real-host proof of the helper's session with its caller: heartbeats, the lock holder it feeds, and what a closed session stops.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { revisionLayout } from '@occ-ssh/markers';
import type { AgentOwner } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { AUDIT_JOURNAL_MATCHES } from '../audit/audit.js';
import { activateArgs, call, exists, gatewayStarts, helperRunning, layoutOf, ok, owner, prepareArgs, shell, unitState } from '@occ-ssh/test-support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the helper session on a real host', () => {
  let host: TestHost;
  const ensure = (who: AgentOwner) => ok(host, 'ensure-namespace', { namespace: who.namespace });
  before(async () => {
    host = await startTestHost({ name: 'hsess' });
  });
  after(() => host?.down());

  const h = owner('session', 'session');

  test('heartbeats come once a second and before every change, and the lock is held by a child of the helper whose stdin comes from the helper', async () => {
    const rev = prepareArgs(h, 1, { fixtureGateway: { readyAfterMs: 5000 } });
    await ensure(h);
    await ok(host, 'prepare-revision', rev);
    // Polled on the host: activation holds the lock only for its changes, not for the readiness wait.
    // A sighting counts only if the flock process was still there after its parent and stdin were read.
    const look = `for p in $(pgrep -f '^flock --exclusive'); do pp=$(ps -o ppid= -p $p | tr -d ' ') && [ -n "$pp" ] && i=$(readlink /proc/$p/fd/0) && c=$(tr '\\0' ' ' < /proc/$pp/cmdline) && [ -d /proc/$p ] && echo "$c| $i"; done`;
    const started = `/tmp/session-poll-${rev.revision.id}`;
    const polling = host.exec(['sh', '-c', `touch ${started}; for n in $(seq 3000); do h=$(${look}); [ -n "$h" ] && { echo "$h"; exit; }; sleep 0.01; done`]);
    // The helper starts only once the poll runs, so however slow the machine, the poll sees the whole lock hold.
    for (let i = 0; i < 600 && !(await exists(host, started)); i += 1) await sleep(100);
    const outcome = await call(host, 'activate-revision', activateArgs(rev));
    // flock forks before it execs cat, so a poll may also see that child for a moment (its parent flock).
    const sightings = (await polling).stdout.trim().split('\n');
    const holder = sightings.find((line) => !line.startsWith('flock ')) ?? sightings.join(' / ');
    assert.match(holder, new RegExp(`^${host.nodePath} - [A-Za-z0-9+/=]+ \\| (pipe|socket):\\[\\d+\\]$`), "the flock holder is the helper's child, reading from it");
    assert.ok(outcome.line?.ok);
    const beats = outcome.stdout
      .split('\n')
      .filter((line) => line.startsWith('{"type":"heartbeat"'))
      .map((line) => (JSON.parse(line) as { seq: number }).seq);
    assert.deepEqual(
      beats,
      beats.map((_, i) => i),
      'consecutive sequence numbers',
    );
    // A line a second from the timer, and one more at every check before a change (the audit line counts those).
    let changes = Number.NaN;
    for (let i = 0; i < 20 && Number.isNaN(changes); i += 1) {
      const journal = await host.run(['journalctl', '--no-pager', '-o', 'cat', ...AUDIT_JOURNAL_MATCHES]);
      changes = Number(new RegExp(`request=${outcome.line.requestId} .*changes=(\\d+)`).exec(journal)?.[1] ?? Number.NaN);
      if (Number.isNaN(changes)) await sleep(100);
    }
    assert.ok(changes > 0, `the audit line counts the activation's changes (${changes})`);
    const seconds = outcome.line.timings.totalMs / 1000;
    // Besides those: the few checks that begin no change (dispatch's two, one before each phase).
    // The timer beats once a second; on a loaded machine each beat may come up to half a second late.
    const timer = { min: Math.floor(seconds / 1.5) - 1, max: Math.ceil(seconds) + 1 };
    assert.ok(beats.length >= 4 && beats.length >= timer.min + changes && beats.length <= timer.max + changes + 10, `${beats.length} heartbeats in ${seconds} s with ${changes} changes`);
  });

  test('a closed session stops the helper before served.json while the submitted restart completes; retries must re-establish readiness', async () => {
    const layout = layoutOf(h);
    const rev = prepareArgs(h, 2, { fixtureGateway: { readyAfterMs: 8000 } });
    await ok(host, 'prepare-revision', rev);
    const count = (await gatewayStarts(host, h)).length;
    // A connection of its own: the sshd process killed below must be this call's alone.
    const pending = call(host, 'activate-revision', activateArgs(rev), { ownConnection: true });
    for (let i = 0; i < 300 && (await gatewayStarts(host, h)).length === count; i += 1) await sleep(100);
    // The restart is with systemd now: close the helper's session by killing its sshd session process.
    await shell(host, `p=$(pgrep -f '^${host.nodePath} - ' | head -1); while [ "$(ps -o comm= -p $p)" != sshd ]; do p=$(ps -o ppid= -p $p | tr -d ' '); done; kill -KILL $p`);
    assert.equal((await pending).line, undefined);
    for (let i = 0; i < 30 && (await helperRunning(host)); i += 1) await sleep(100);
    assert.equal(await helperRunning(host), false, 'the helper noticed the closed session and stopped');
    assert.equal(await host.run(['readlink', layout.current]), `${revisionLayout(layout.dir, rev.revision.id).currentTarget}\n`);
    assert.equal(await unitState(host, h), 'active', 'the restart handed to systemd completed');
    const { port } = await ok(host, 'verify-revision', { owner: h, revision: rev.revision });
    let ready = 1;
    for (let i = 0; i < 100 && ready !== 0; i += 1) if ((ready = (await host.exec(['curl', '-sf', '-o', '/dev/null', `http://127.0.0.1:${port}/readyz`])).code ?? 1)) await sleep(200);
    assert.equal(ready, 0, 'the gateway that restart started became ready on its own');
    assert.equal(await exists(host, layout.served), false, 'a matching current pointer and a ready gateway are not served');

    const retry = await ok(host, 'activate-revision', activateArgs(rev));
    assert.ok(retry.readyMs > 0, 'the retry proved readiness itself');
    assert.equal((JSON.parse(await host.run(['cat', layout.served])) as { revisionId: string }).revisionId, rev.revision.id);
    await host.run(['systemctl', 'stop', layout.unitName]);
    const stopped = (await gatewayStarts(host, h)).length;
    const again = await ok(host, 'activate-revision', activateArgs(rev));
    assert.ok(again.readyMs > 0);
    assert.equal((await gatewayStarts(host, h)).length, stopped + 1, 'served.json alone did not count: the stopped gateway was started again');
  });
});
