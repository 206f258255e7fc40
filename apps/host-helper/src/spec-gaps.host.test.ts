// Real-host proof of spec promises the other helper suites leave open: ports, lock, operator env file, restarts, cutover, session.
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { accountName, agentLayout, namespaceLayout, revisionLayout, sha256Hex } from '@occ-ssh/markers';
import { ComputeError, type AgentOwner, type OperationArgs } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { HELPER_DEADLINE_MS, Session } from './session.js';
import { ROOT, UNIT_DIR, activateArgs, call, callRaw, envelopeFor, exists, fails, ok, owner, prepareArgs, statOf, unvalidatedArgument } from '@occ-ssh/test-support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LOCK = `${ROOT}/.compute-lock`;
const PASSWORD_REF = { source: 'env', provider: 'default', id: 'OPENCLAW_GATEWAY_PASSWORD' };

/** A trusted-proxy document, with or without the opt-in managed loopback password. */
function proxyArgs(who: AgentOwner, number: number, withPassword: boolean): OperationArgs<'prepare-revision'> {
  const auth = { mode: 'trusted-proxy', trustedProxy: { userHeader: 'x-forwarded-user' }, ...(withPassword ? { password: PASSWORD_REF } : {}) };
  const text = `${JSON.stringify({ gateway: { auth, bind: 'loopback', mode: 'local' } }, null, 2)}\n`;
  return { owner: who, revision: { id: `rev-${who.agent.id}-${number}`, number }, harness: 'openclaw/embedded', configuration: { document: text, hash: sha256Hex(text), auth: withPassword ? 'trusted-proxy-password' : 'trusted-proxy' } };
}

describe('spec gaps on a real host', () => {
  let host: TestHost;
  const sh = (script: string) => host.run(['sh', '-c', script]);
  const layoutOf = (who: AgentOwner) => agentLayout(ROOT, UNIT_DIR, who.namespace.id, who.agent.id);
  const accountOf = (who: AgentOwner) => accountName('openclaw', who.namespace.id, who.agent.id);
  const ensure = (who: AgentOwner) => ok(host, 'ensure-namespace', { namespace: who.namespace });
  const unitState = async (who: AgentOwner) => (await host.exec(['systemctl', 'is-active', layoutOf(who).unitName])).stdout.trim();
  const property = async (who: AgentOwner, name: string) =>
    (await host.run(['systemctl', 'show', `--property=${name}`, layoutOf(who).unitName])).trim().split('\n').map((line) => line.slice(name.length + 1));
  const mainPid = async (who: AgentOwner) => (await property(who, 'MainPID'))[0]!;
  const environ = async (who: AgentOwner) => (await host.run(['cat', `/proc/${await mainPid(who)}/environ`])).split('\0');
  const starts = async (who: AgentOwner) =>
    (await host.run(['cat', `${layoutOf(who).state}/fixture-starts.jsonl`])).trim().split('\n').map((line) => JSON.parse(line) as { pid: number; startedAt: string });
  /** Holds the host lock from outside the driver, in a session of its own; returns its process group. */
  const holdLock = async (seconds: number) => (await sh(`setsid flock ${LOCK} sleep ${seconds} </dev/null >/dev/null 2>&1 & echo $!`)).trim();
  const release = (group: string) => host.exec(['kill', '--', `-${group}`]);
  const helperRunning = async () => (await host.exec(['pgrep', '-f', `^${host.nodePath} - `])).code === 0;

  before(async () => {
    host = await startTestHost({ name: 'hgap' });
  });
  after(() => host?.down());

  const a1 = owner('pa1', 'ports-a');
  const a2 = { ...owner('pa2', 'ports-a'), namespace: a1.namespace };
  const b1 = owner('pb1', 'ports-b');
  let portB = 0;

  test('ports are the lowest free across Namespaces, distinct under parallel prepares, freed by deletion and reused; the other Namespace is untouched', async () => {
    const c1 = owner('pc1', 'ports-c');
    const c2 = { ...owner('pc2', 'ports-c'), namespace: c1.namespace };
    for (const who of [a1, b1, c1]) await ensure(who);
    const ports = await Promise.all([a1, a2, b1].map(async (who) => (await ok(host, 'prepare-revision', prepareArgs(who, 1))).port));
    assert.deepEqual([...ports].sort(), [18800, 18801, 18802], 'the flock serializes allocation');
    portB = ports[2]!;
    for (const who of [a1, b1]) await ok(host, 'activate-revision', activateArgs(prepareArgs(who, 1)));
    const treeOfB = () => sh(`find ${namespaceLayout(ROOT, b1.namespace.id).dir} -printf '%p %u %g %m %s %T@\\n' | sort | sha256sum`);
    const before = { tree: await treeOfB(), pid: await mainPid(b1) };

    const revisionMarker = revisionLayout(layoutOf(a2).dir, prepareArgs(a2, 1).revision.id).marker;
    for (const [marker, field, value] of [[revisionMarker, 'agentId', a2.agent.id], [layoutOf(a2).marker, 'namespaceId', a2.namespace.id]] as const) {
      const original = await host.run(['cat', marker]);
      await host.run(['sed', '-i', `s/"${field}": "${value}"/"${field}": "someone-else"/`, marker]);
      const refused = await fails(host, 'delete-namespace', { namespace: a1.namespace });
      assert.deepEqual([refused.code, refused.path], ['ownership', marker], 'a foreign marker in the set is found before any gateway stops');
      assert.equal(await unitState(a1), 'active');
      await host.run(['tee', marker], { input: original });
    }

    assert.equal((await ok(host, 'delete-namespace', { namespace: a1.namespace })).agentsRemoved, 2);
    assert.deepEqual(await property(a1, 'LoadState'), ['not-found'], 'unit files removed and systemd reloaded');
    assert.equal(await treeOfB(), before.tree);
    assert.equal(await mainPid(b1), before.pid, 'the other Namespace\'s gateway was not restarted');
    assert.equal(await unitState(b1), 'active');
    assert.equal((await host.exec(['getent', 'passwd', accountOf(b1)])).code, 0);
    const freed = [ports[0]!, ports[1]!].sort((x, y) => x - y);
    assert.equal((await ok(host, 'prepare-revision', prepareArgs(c1, 1))).port, freed[0]);
    assert.equal((await ok(host, 'prepare-revision', prepareArgs(c2, 1))).port, freed[1]);
  });

  test('account, Agent and Namespace markers bind the live UID/GID and port to the exact Driver, Namespace, Agent and ServicePrincipal', async () => {
    const name = accountOf(b1);
    const fields = (await host.run(['getent', 'passwd', name])).trim().split(':');
    const [uid, gid] = [Number(fields[2]), Number(fields[3])];
    assert.equal(Number((await host.run(['getent', 'group', name])).trim().split(':')[2]), gid);
    const owned = { driver: 'compute-ssh', namespaceId: b1.namespace.id, agentId: b1.agent.id, servicePrincipalId: b1.servicePrincipal.id };
    assert.deepEqual(JSON.parse(await host.run(['cat', `${ROOT}/accounts/${name}.json`])), { kind: 'account', version: 1, ...owned, account: name, state: 'active', uid, gid });
    assert.deepEqual(JSON.parse(await host.run(['cat', layoutOf(b1).marker])), { kind: 'agent', version: 1, ...owned, account: name, uid, gid, port: portB });
    assert.deepEqual(JSON.parse(await host.run(['cat', namespaceLayout(ROOT, b1.namespace.id).marker])), { kind: 'namespace', version: 1, driver: 'compute-ssh', namespaceId: b1.namespace.id, namespaceName: 'ports-b' });
    const impostor = { ...b1, servicePrincipal: { id: 'sp-impostor' } };
    const error = await fails(host, 'prepare-revision', prepareArgs(impostor, 2));
    assert.equal(error.code, 'ownership');
    assert.equal(error.path, layoutOf(b1).marker);
  });

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

  test('the unit runs exactly <nodePath> <openclawPath> gateway --port <port> as the private account, logging to journald', async () => {
    const layout = layoutOf(b1);
    const pid = await mainPid(b1);
    assert.deepEqual((await host.run(['cat', `/proc/${pid}/cmdline`])).split('\0').filter(Boolean), [host.nodePath, host.fixtureGatewayPath, 'gateway', '--port', String(portB)]);
    const [, , uid, gid] = (await host.run(['getent', 'passwd', accountOf(b1)])).trim().split(':');
    const status = await host.run(['cat', `/proc/${pid}/status`]);
    assert.match(status, new RegExp(`^Uid:\\s+${uid}\\s+${uid}\\s`, 'm'));
    assert.match(status, new RegExp(`^Gid:\\s+${gid}\\s+${gid}\\s`, 'm'));
    assert.match(status, new RegExp(`^Groups:\\s*(${gid}\\s*)?$`, 'm'), 'no supplementary group beyond its own');
    assert.equal((await environ(b1)).filter((entry) => entry.startsWith('OPENCLAW_LOG_LEVEL=')).length, 0);
    assert.deepEqual(await property(b1, 'EnvironmentFiles'), [`${layout.passwordFile} (ignore_errors=no)`, `${layout.operatorEnvFile} (ignore_errors=yes)`], 'no legacy credential or environment file');
    assert.match(await host.journal(layout.unitName), new RegExp(`fixture gateway listening on 127\\.0\\.0\\.1:${portB}`));
  });

  test('the operator env file is loaded by systemd as root, never read, written or removed by prepare, activate, stop or retire, and goes with the Namespace', async () => {
    const who = owner('envf', 'envf');
    const layout = layoutOf(who);
    const env = layout.operatorEnvFile;
    const [rev1, rev2] = [prepareArgs(who, 1), prepareArgs(who, 2)];
    const fingerprint = () => sh(`sha256sum ${env}; stat -c '%U:%G %a %s %i %Y' ${env}`);
    const password = () => sh(`sha256sum ${layout.passwordFile}; stat -c '%U:%G %a %i %Y' ${layout.passwordFile}`);
    const age = async () => {
      await host.run(['touch', '-a', '-d', '2001-01-01 00:00:00', env]);
      return sh(`stat -c %X ${env}`);
    };
    await ensure(who);
    await ok(host, 'prepare-revision', rev1);
    await host.run(['install', '-m', '600', '-o', 'root', '-g', 'root', '/dev/stdin', env], { input: 'OCC_GAP_FOO=bar\n' });
    const [print, secret, aged] = [await fingerprint(), await password(), await age()];

    await ok(host, 'prepare-revision', rev2);
    assert.equal(await sh(`stat -c %X ${env}`), aged, 'prepare did not even read it');
    await ok(host, 'activate-revision', activateArgs(rev1));
    assert.ok((await environ(who)).includes('OCC_GAP_FOO=bar'));
    assert.notEqual((await host.exec(['runuser', '-u', accountOf(who), '--', 'cat', env])).code, 0, 'only root (systemd) can read it');
    assert.equal(await fingerprint(), print);

    await sh(`printf 'OCC_GAP_FOO=baz\\n' > ${env}`);
    await host.run(['systemctl', 'restart', layout.unitName]);
    assert.ok((await environ(who)).includes('OCC_GAP_FOO=baz'), 'a restart loads changed values without a new revision');
    const seen = await ok(host, 'verify-revision', { owner: who, revision: rev1.revision });
    assert.deepEqual([seen.current, seen.served], [true, true], 'the same immutable revision is still the served one');

    const [changed, agedAgain] = [await fingerprint(), await age()];
    await ok(host, 'stop-revision', { owner: who, revision: rev1.revision });
    await ok(host, 'retire-revision', { owner: who, revision: rev2.revision });
    await ok(host, 'retire-revision', { owner: who, revision: rev1.revision });
    assert.equal(await sh(`stat -c %X ${env}`), agedAgain, 'stop and retire did not read it');
    assert.equal(await fingerprint(), changed);
    assert.equal(await password(), secret, 'the managed password was never rotated');
    assert.equal((await host.exec(['getent', 'passwd', accountOf(who)])).code, 0, 'the account persists across retirement');
    for (const path of [layout.home, layout.state, layout.passwordFile]) assert.equal(await exists(host, path), true, path);
    await host.run(['cat', env]);
    assert.notEqual(await sh(`stat -c %X ${env}`), agedAgain, 'control: a read does move the access time');

    await ok(host, 'delete-namespace', { namespace: who.namespace });
    assert.equal(await exists(host, env), false);
  });

  test('gateway-password.env exists only when needed; trusted proxy can opt into the same loopback password', async () => {
    const who = owner('proxy', 'proxy');
    const layout = layoutOf(who);
    const [plain, withPassword] = [proxyArgs(who, 1, false), proxyArgs(who, 2, true)];
    await ensure(who);
    await ok(host, 'prepare-revision', plain);
    await ok(host, 'activate-revision', activateArgs(plain));
    assert.equal(await exists(host, layout.passwordFile), false);
    assert.deepEqual(await property(who, 'EnvironmentFiles'), [`${layout.operatorEnvFile} (ignore_errors=yes)`]);
    assert.equal((await environ(who)).filter((entry) => entry.startsWith('OPENCLAW_GATEWAY_PASSWORD=')).length, 0);
    await ok(host, 'prepare-revision', withPassword);
    assert.equal(await statOf(host, layout.passwordFile), 'root:root 600 regular file');
    await ok(host, 'activate-revision', activateArgs(withPassword));
    assert.deepEqual(await property(who, 'EnvironmentFiles'), [`${layout.passwordFile} (ignore_errors=no)`, `${layout.operatorEnvFile} (ignore_errors=yes)`]);
    assert.ok((await environ(who)).includes((await host.run(['cat', layout.passwordFile])).trim()));
    assert.deepEqual(await ok(host, 'retire-revision', { owner: who, revision: withPassword.revision }), { removed: true, wasCurrent: true });
    assert.deepEqual([await unitState(who), (await host.exec(['systemctl', 'is-enabled', layout.unitName])).stdout.trim()], ['inactive', 'disabled']);
    for (const path of [layout.current, layout.served]) assert.equal(await exists(host, path), false, path);
    for (const path of [revisionLayout(layout.dir, plain.revision.id).config, layout.passwordFile, layout.state]) assert.equal(await exists(host, path), true, path);
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
    const before = (await starts(r)).length;
    await ok(host, 'activate-revision', activateArgs(rev));
    for (let i = 0; i < 100 && (await starts(r)).length < before + 2; i += 1) await sleep(200);
    const [first, second] = (await starts(r)).slice(before);
    assert.ok(first && second, 'a second start after the crash');
    const gap = Date.parse(second.startedAt) - Date.parse(first.startedAt);
    assert.ok(gap >= 3000, `crash 1 s after readiness + RestartSec 2 s, got ${gap} ms`);
    assert.ok(Number((await property(r, 'NRestarts'))[0]) >= 1);
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
    assert.deepEqual(await property(r, 'Result'), ['success']);
    assert.deepEqual(await property(r, 'MainPID'), ['0']);
    assert.match(await host.journal(layoutOf(r).unitName), /State 'stop-sigterm' timed out\. Killing\./);
    assert.equal((await host.exec(['pgrep', '-u', accountOf(r)])).code, 1, 'SIGKILL ended the gateway');
    assert.equal((await host.exec(['systemctl', 'is-enabled', layoutOf(r).unitName])).stdout.trim(), 'disabled');
    assert.match(await host.journal(layoutOf(r).unitName), /ignoring SIGTERM/);
  });

  const k = owner('cutover', 'cutover');
  test('cutover: current is a symlink at every instant, and activation is a restart with a bounded interruption', async () => {
    const layout = layoutOf(k);
    const [k1, k2] = [prepareArgs(k, 1), prepareArgs(k, 2, { fixtureGateway: { readyAfterMs: 1500 } })];
    await ensure(k);
    for (const rev of [k1, k2]) await ok(host, 'prepare-revision', rev);
    const { port } = await ok(host, 'activate-revision', activateArgs(k1));
    const oldPid = await mainPid(k);
    const poll = sh(
      `cd ${layout.dir} && (timeout 12 sh -c 'while :; do readlink current || echo MISSING; done' > /tmp/links &` +
        ` timeout 12 sh -c 'while :; do curl -s -o /dev/null -m 1 -w "%{http_code}\\n" http://127.0.0.1:${port}/readyz; sleep 0.05; done' > /tmp/ready & wait)`,
    );
    await sleep(1000);
    await ok(host, 'activate-revision', activateArgs(k2));
    await poll;
    const runs = (text: string) => text.trim().split('\n').filter((line, i, all) => i === 0 || line !== all[i - 1]);
    const targets = [k1, k2].map((rev) => revisionLayout(layout.dir, rev.revision.id).currentTarget);
    assert.deepEqual(runs(await host.run(['cat', '/tmp/links'])), targets, 'never MISSING, one switch');
    const ready = runs(await host.run(['cat', '/tmp/ready']));
    assert.equal(ready[0], '200');
    assert.equal(ready.at(-1), '200');
    assert.ok(ready.some((code) => code !== '200'), `service was interrupted during the restart: ${ready.join(',')}`);
    assert.notEqual(await mainPid(k), oldPid);
  });

  const h = owner('session', 'session');
  test('heartbeats come about once a second, and the lock is held by a child of the helper whose stdin comes from the helper', async () => {
    const rev = prepareArgs(h, 1, { fixtureGateway: { readyAfterMs: 5000 } });
    await ensure(h);
    await ok(host, 'prepare-revision', rev);
    const pending = call(host, 'activate-revision', activateArgs(rev));
    // Polled on the host: activation holds the lock only for its changes, not for the readiness wait.
    const look = `for p in $(pgrep -f '^flock --exclusive'); do pp=$(ps -o ppid= -p $p | tr -d ' '); i=$(readlink /proc/$p/fd/0); echo "$(tr '\\0' ' ' < /proc/$pp/cmdline)| $i"; done`;
    const holder = (await host.exec(['sh', '-c', `for n in $(seq 400); do h=$(${look}); [ -n "$h" ] && { echo "$h"; exit; }; sleep 0.01; done`])).stdout.trim();
    assert.match(holder, new RegExp(`^${host.nodePath} - [A-Za-z0-9+/=]+ \\| (pipe|socket):\\[\\d+\\]$`), 'the flock holder is the helper\'s child, reading from it');
    const outcome = await pending;
    assert.ok(outcome.line?.ok);
    const beats = outcome.stdout.split('\n').filter((line) => line.startsWith('{"type":"heartbeat"')).map((line) => (JSON.parse(line) as { seq: number }).seq);
    assert.deepEqual(beats, beats.map((_, i) => i), 'consecutive sequence numbers');
    const seconds = outcome.line.timings.totalMs / 1000;
    assert.ok(beats.length >= 4 && beats.length >= Math.floor(seconds) - 1 && beats.length <= Math.ceil(seconds) + 1, `${beats.length} heartbeats in ${seconds} s`);
  });

  test('a closed session stops the helper before served.json while the submitted restart completes; retries must re-establish readiness', async () => {
    const layout = layoutOf(h);
    const rev = prepareArgs(h, 2, { fixtureGateway: { readyAfterMs: 8000 } });
    await ok(host, 'prepare-revision', rev);
    const count = (await starts(h)).length;
    const pending = call(host, 'activate-revision', activateArgs(rev));
    for (let i = 0; i < 300 && (await starts(h)).length === count; i += 1) await sleep(100);
    // The restart is with systemd now: close the helper's session by killing its sshd session process.
    await sh(`p=$(pgrep -f '^${host.nodePath} - ' | head -1); while [ "$(ps -o comm= -p $p)" != sshd ]; do p=$(ps -o ppid= -p $p | tr -d ' '); done; kill -KILL $p`);
    assert.equal((await pending).line, undefined);
    for (let i = 0; i < 30 && (await helperRunning()); i += 1) await sleep(100);
    assert.equal(await helperRunning(), false, 'the helper noticed the closed session and stopped');
    assert.equal(await host.run(['readlink', layout.current]), `${revisionLayout(layout.dir, rev.revision.id).currentTarget}\n`);
    assert.equal(await unitState(h), 'active', 'the restart handed to systemd completed');
    const { port } = await ok(host, 'verify-revision', { owner: h, revision: rev.revision });
    let ready = 1;
    for (let i = 0; i < 100 && ready !== 0; i += 1) if ((ready = (await host.exec(['curl', '-sf', '-o', '/dev/null', `http://127.0.0.1:${port}/readyz`])).code ?? 1)) await sleep(200);
    assert.equal(ready, 0, 'the gateway that restart started became ready on its own');
    assert.equal(await exists(host, layout.served), false, 'a matching current pointer and a ready gateway are not served');

    const retry = await ok(host, 'activate-revision', activateArgs(rev));
    assert.ok(retry.readyMs > 0, 'the retry proved readiness itself');
    assert.equal((JSON.parse(await host.run(['cat', layout.served])) as { revisionId: string }).revisionId, rev.revision.id);
    await host.run(['systemctl', 'stop', layout.unitName]);
    const stopped = (await starts(h)).length;
    const again = await ok(host, 'activate-revision', activateArgs(rev));
    assert.ok(again.readyMs > 0);
    assert.equal((await starts(h)).length, stopped + 1, 'served.json alone did not count: the stopped gateway was started again');
  });
});

describe('the helper session bounds (no host: 170 s cannot be waited for and the wire cannot shorten it)', () => {
  test('the helper deadline is 170 s, below the 180 s transport bound, and stops any further change', () => {
    assert.equal(HELPER_DEADLINE_MS, 170_000);
    assert.ok(HELPER_DEADLINE_MS < 180_000);
    const session = new Session(new PassThrough(), 0);
    assert.throws(() => session.checkpoint(), (error: unknown) => error instanceof ComputeError && error.code === 'timeout');
  });

  test('a failed heartbeat write marks the session closed and refuses the next change', async () => {
    const session = new Session(new Writable({ write: (_chunk, _encoding, done) => done(new Error('EPIPE')) }));
    session.heartbeat();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(session.isClosed, true);
    assert.throws(() => session.checkpoint(), (error: unknown) => error instanceof ComputeError && error.code === 'cancelled');
  });
});
