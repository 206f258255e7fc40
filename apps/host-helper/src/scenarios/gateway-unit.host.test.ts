// Real-host proof of how the gateway runs under its unit: the exact process, readiness, restarts, stop and cutover.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { revisionLayout } from '@occ-ssh/markers';
import type { AgentOwner } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import {
  accountOf,
  activateArgs,
  call,
  callRaw,
  envelopeFor,
  gatewayEnviron,
  gatewayStarts,
  layoutOf,
  mainPid,
  ok,
  owner,
  prepareArgs,
  shell,
  unitProperty,
  unvalidatedArgument,
} from '@occ-ssh/test-support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the gateway under its unit on a real host', () => {
  let host: TestHost;
  const ensure = (who: AgentOwner) => ok(host, 'ensure-namespace', { namespace: who.namespace });
  before(async () => {
    host = await startTestHost({ name: 'hunit' });
  });
  after(() => host?.down());

  test('the unit runs exactly <nodePath> <openclawPath> gateway --port <port> as the private account, logging to journald', async () => {
    const g = owner('process', 'process');
    const rev = prepareArgs(g, 1);
    await ensure(g);
    await ok(host, 'prepare-revision', rev);
    const { port } = await ok(host, 'activate-revision', activateArgs(rev));
    const layout = layoutOf(g);
    const pid = await mainPid(host, g);
    assert.deepEqual((await host.run(['cat', `/proc/${pid}/cmdline`])).split('\0').filter(Boolean), [host.nodePath, host.fixtureGatewayPath, 'gateway', '--port', String(port)]);
    const [, , uid, gid] = (await host.run(['getent', 'passwd', accountOf(g)])).trim().split(':');
    const status = await host.run(['cat', `/proc/${pid}/status`]);
    assert.match(status, new RegExp(`^Uid:\\s+${uid}\\s+${uid}\\s`, 'm'));
    assert.match(status, new RegExp(`^Gid:\\s+${gid}\\s+${gid}\\s`, 'm'));
    assert.match(status, new RegExp(`^Groups:\\s*(${gid}\\s*)?$`, 'm'), 'no supplementary group beyond its own');
    assert.equal((await gatewayEnviron(host, g)).filter((entry) => entry.startsWith('OPENCLAW_LOG_LEVEL=')).length, 0);
    assert.deepEqual(
      await unitProperty(host, g, 'EnvironmentFiles'),
      [`${layout.passwordFile} (ignore_errors=no)`, `${layout.launchEnvFile} (ignore_errors=no)`, `${layout.operatorEnvFile} (ignore_errors=yes)`],
      'no legacy credential or environment file',
    );
    assert.match(await host.journal(layout.unitName), new RegExp(`fixture gateway listening on 127\\.0\\.0\\.1:${port}`));
  });

  test('the driver asks the gateway for /readyz only, never for a model response', async () => {
    const who = owner('probe', 'probe');
    const script = '/opt/occ-gap/recording-gateway.cjs';
    await host.run(['mkdir', '-p', '/opt/occ-gap']);
    await host.run(['tee', script], {
      input: `const fs = require('fs'); const log = process.env.OPENCLAW_STATE_DIR + '/requests.log';
require('http').createServer((q, s) => { fs.appendFileSync(log, q.method + ' ' + q.url + '\\n'); s.writeHead(q.url === '/readyz' ? 200 : 404); s.end(); }).listen(Number(process.argv[4]), '127.0.0.1');\n`,
    });
    const runtime = { openclawPath: script };
    await ok(host, 'ensure-namespace', { namespace: who.namespace }, { runtime });
    const rev = prepareArgs(who, 1);
    await ok(host, 'prepare-revision', rev, { runtime });
    await ok(host, 'activate-revision', activateArgs(rev), { runtime });
    await ok(host, 'activate-revision', activateArgs(rev), { runtime });
    const requests = (await host.run(['cat', `${layoutOf(who).state}/requests.log`])).trim().split('\n');
    assert.ok(requests.length >= 1);
    assert.deepEqual([...new Set(requests)], ['GET /readyz']);
    await ok(host, 'stop-revision', { owner: who, revision: rev.revision }, { runtime });
  });

  const r = owner('restarts', 'restarts');
  test('readiness polling gives up at its bound; a bound above 120 s is refused by the helper itself', async () => {
    const rev = prepareArgs(r, 1, { fixtureGateway: { neverReady: true } });
    await ensure(r);
    await ok(host, 'prepare-revision', rev);
    const outcome = await call(host, 'activate-revision', activateArgs(rev, {}, 3000));
    assert.equal(outcome.line?.ok, false);
    assert.equal(outcome.line.error.code, 'not-ready');
    assert.match(outcome.line.error.message, /within 3000 ms/);
    assert.ok(outcome.line.timings.totalMs >= 3000 && outcome.line.timings.totalMs < 10_000, `${outcome.line.timings.totalMs} ms`);
    const { line } = await callRaw(host, unvalidatedArgument(envelopeFor(host, 'activate-revision', { ...activateArgs(rev), readinessTimeoutMs: 120_001 })));
    assert.equal(line?.ok === false ? line.error.code : line, 'configuration');
  });

  test('a gateway that crashes after readiness is restarted by systemd after RestartSec=2', async () => {
    const rev = prepareArgs(r, 2, { fixtureGateway: { crashAfterReadyMs: 1000 } });
    await ok(host, 'prepare-revision', rev);
    const before = (await gatewayStarts(host, r)).length;
    await ok(host, 'activate-revision', activateArgs(rev));
    for (let i = 0; i < 100 && (await gatewayStarts(host, r)).length < before + 2; i += 1) await sleep(200);
    const [first, second] = (await gatewayStarts(host, r)).slice(before);
    assert.ok(first && second, 'a second start after the crash');
    const gap = Date.parse(second.startedAt) - Date.parse(first.startedAt);
    assert.ok(gap >= 3000, `crash 1 s after readiness + RestartSec 2 s, got ${gap} ms`);
    assert.ok(Number((await unitProperty(host, r, 'NRestarts'))[0]) >= 1);
    await ok(host, 'stop-revision', { owner: r, revision: rev.revision });
  });

  test('a gateway that ignores SIGTERM is killed after TimeoutStopSec=30 and stop-revision still succeeds', async () => {
    const rev = prepareArgs(r, 3, { fixtureGateway: { ignoreSigterm: true } });
    await ok(host, 'prepare-revision', rev);
    await ok(host, 'activate-revision', activateArgs(rev));
    const outcome = await call(host, 'stop-revision', { owner: r, revision: rev.revision });
    assert.deepEqual(outcome.line?.ok ? outcome.line.result : outcome.line, { unitFound: true, currentRemoved: true });
    assert.ok(outcome.ms >= 29_000 && outcome.ms < 60_000, `stop took ${outcome.ms} ms`);
    // stop-revision resets the failed state afterwards, so the unit's Result is clean again: the
    // timeout shows in the manager's own journal lines for the unit.
    assert.deepEqual(await unitProperty(host, r, 'Result'), ['success']);
    assert.deepEqual(await unitProperty(host, r, 'MainPID'), ['0']);
    assert.match(await host.journal(layoutOf(r).unitName), /State 'stop-sigterm' timed out\. Killing\./);
    assert.equal((await host.exec(['pgrep', '-u', accountOf(r)])).code, 1, 'SIGKILL ended the gateway');
    assert.equal((await host.exec(['systemctl', 'is-enabled', layoutOf(r).unitName])).stdout.trim(), 'disabled');
    assert.match(await host.journal(layoutOf(r).unitName), /ignoring SIGTERM/);
  });

  test("the next revision of a gateway that ignores SIGTERM waits out the old one's stop outside the lock, while a sibling prepares", async () => {
    const deaf = owner('deaf', 'deaf');
    const sibling = { ...owner('deaf-sibling', 'deaf'), namespace: deaf.namespace };
    const [d1, d2] = [prepareArgs(deaf, 1, { fixtureGateway: { ignoreSigterm: true } }), prepareArgs(deaf, 2)];
    await ensure(deaf);
    for (const rev of [d1, d2]) await ok(host, 'prepare-revision', rev);
    await ok(host, 'activate-revision', activateArgs(d1));
    const oldPid = await mainPid(host, deaf);
    const activation = call(host, 'activate-revision', activateArgs(d2, {}, 90_000));
    // The old gateway has its SIGTERM by now and ignores it for TimeoutStopSec=30.
    await sleep(3000);
    const prepared = await call(host, 'prepare-revision', prepareArgs(sibling, 1));
    const outcome = await activation;
    assert.ok(prepared.line?.ok && outcome.line?.ok, `${prepared.stdout.slice(-300)}\n${outcome.stdout.slice(-300)}`);
    const [siblingTimings, activationTimings] = [prepared.line.timings, outcome.line.timings];
    process.stderr.write(
      `# SIGTERM ignored: activation ${outcome.ms} ms, lock held ${activationTimings.lockHoldMs} ms; sibling prepare ${prepared.ms} ms, lock wait ${siblingTimings.lockWaitMs} ms\n`,
    );
    // Security: the stop the gateway drags out is systemd's job, waited for outside the lock.
    assert.ok(outcome.ms >= 29_000, `the activation ended after ${outcome.ms} ms, before the old gateway's stop timed out`);
    assert.ok((activationTimings.lockHoldMs ?? Infinity) < 5000, `the activation held the lock ${activationTimings.lockHoldMs} ms`);
    assert.ok((siblingTimings.lockWaitMs ?? Infinity) < 5000, `the sibling waited ${siblingTimings.lockWaitMs} ms for the lock`);
    assert.match(await host.journal(layoutOf(deaf).unitName), /State 'stop-sigterm' timed out\. Killing\./);
    // The old run answered /readyz while it was ignoring its stop: only the new run's answer counts.
    assert.notEqual(await mainPid(host, deaf), oldPid);
    const served = JSON.parse(await host.run(['cat', layoutOf(deaf).served])) as { revisionId: string };
    assert.equal(served.revisionId, d2.revision.id);
    await ok(host, 'stop-revision', { owner: deaf, revision: d2.revision });
  });

  const k = owner('cutover', 'cutover');
  test('cutover: current is a symlink at every instant, and activation is a restart with a bounded interruption', async () => {
    const layout = layoutOf(k);
    const [k1, k2] = [prepareArgs(k, 1), prepareArgs(k, 2, { fixtureGateway: { readyAfterMs: 1500 } })];
    await ensure(k);
    for (const rev of [k1, k2]) await ok(host, 'prepare-revision', rev);
    const { port } = await ok(host, 'activate-revision', activateArgs(k1));
    const oldPid = await mainPid(host, k);
    const poll = shell(
      host,
      `cd ${layout.dir} && (timeout 12 sh -c 'while :; do readlink current || echo MISSING; done' > /tmp/links &` +
        ` timeout 12 sh -c 'while :; do curl -s -o /dev/null -m 1 -w "%{http_code}\\n" http://127.0.0.1:${port}/readyz; sleep 0.05; done' > /tmp/ready & wait)`,
    );
    await sleep(1000);
    await ok(host, 'activate-revision', activateArgs(k2));
    await poll;
    const runs = (text: string) =>
      text
        .trim()
        .split('\n')
        .filter((line, i, all) => i === 0 || line !== all[i - 1]);
    const targets = [k1, k2].map((rev) => revisionLayout(layout.dir, rev.revision.id).currentTarget);
    assert.deepEqual(runs(await host.run(['cat', '/tmp/links'])), targets, 'never MISSING, one switch');
    const ready = runs(await host.run(['cat', '/tmp/ready']));
    assert.equal(ready[0], '200');
    assert.equal(ready.at(-1), '200');
    assert.ok(
      ready.some((code) => code !== '200'),
      `service was interrupted during the restart: ${ready.join(',')}`,
    );
    assert.notEqual(await mainPid(host, k), oldPid);
  });
});
