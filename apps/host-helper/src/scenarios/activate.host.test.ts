// Real-host proof of activate-, verify-, stop- and retire-revision with the fixture gateway.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentLayout, revisionLayout } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, activateArgs, call, callRaw, envelopeFor, exists, fails, ok, owner, prepareArgs, statOf, unvalidatedArgument } from '@occ-ssh/test-support';

describe('activation lifecycle on a real host', () => {
  let host: TestHost;
  const who = owner('act');
  const layout = agentLayout(ROOT, UNIT_DIR, who.namespace.id, who.agent.id);
  const rev1 = prepareArgs(who, 1);
  const rev2 = prepareArgs(who, 2, { fixtureGateway: { readyAfterMs: 300 } });
  const rev5 = prepareArgs(who, 5);
  const unitState = async () => (await host.exec(['systemctl', 'is-active', layout.unitName])).stdout.trim();
  const unitEnabled = async () => (await host.exec(['systemctl', 'is-enabled', layout.unitName])).stdout.trim();
  const starts = async () => (await host.run(['cat', `${layout.state}/fixture-starts.jsonl`])).trim().split('\n').length;
  const readyz = async (port: number) => (await host.exec(['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', `http://127.0.0.1:${port}/readyz`])).stdout;

  before(async () => {
    host = await startTestHost({ name: 'hact' });
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await ok(host, 'prepare-revision', rev1);
    await ok(host, 'prepare-revision', rev2);
  });
  after(() => host?.down());

  test('activation renders the unit, switches current, restarts and records served.json after readiness', async () => {
    const result = await ok(host, 'activate-revision', activateArgs(rev1, { OCC_IAM_TOKEN: 'opaque-abc123' }));
    assert.equal(result.unitChanged, true);
    assert.equal(result.unit, layout.unitName);
    assert.equal(await unitState(), 'active');
    assert.equal(await unitEnabled(), 'enabled');
    assert.equal(await host.run(['readlink', layout.current]), `revisions/${revisionLayout(layout.dir, rev1.revision.id).currentTarget.split('/')[1]}\n`);
    assert.equal(await statOf(host, layout.unitFile), 'root:root 644 regular file');
    assert.equal(await statOf(host, layout.served), 'root:root 600 regular file');
    const served = JSON.parse(await host.run(['cat', layout.served])) as { revisionId: string; port: number };
    assert.equal(served.revisionId, rev1.revision.id);
    assert.equal(await readyz(result.port), '200');
    const unit = await host.run(['cat', layout.unitFile]);
    assert.doesNotMatch(unit, /opaque-abc123/);
    assert.match(unit, new RegExp(`^EnvironmentFile=${layout.launchEnvFile}$`, 'm'));
    assert.equal(await statOf(host, layout.launchEnvFile), 'root:root 600 regular file');
    assert.match(await host.run(['cat', layout.launchEnvFile]), /^OCC_IAM_TOKEN="opaque-abc123"$/m);
    assert.doesNotMatch(unit, /OPENCLAW_LOG_LEVEL/);
    const env = await host.run(['systemctl', 'show', '--property=User,NoNewPrivileges,PrivateTmp,Restart,RestartUSec,TimeoutStopUSec,KillSignal', layout.unitName]);
    assert.match(env, /^Restart=always$/m);
    assert.match(env, /^RestartUSec=2s$/m);
    assert.match(env, /^TimeoutStopUSec=30s$/m);
    assert.match(env, /^KillSignal=15$/m);
    assert.match(env, /^NoNewPrivileges=yes$/m);
    assert.match(env, /^PrivateTmp=yes$/m);
  });

  test('the gateway runs as the Agent account with the driver environment and the managed password', async () => {
    const pid = (await host.run(['systemctl', 'show', '--property=MainPID', '--value', layout.unitName])).trim();
    const status = await host.run(['cat', `/proc/${pid}/status`]);
    const uid = (await host.run(['stat', '-c', '%u', layout.state])).trim();
    assert.match(status, new RegExp(`^Uid:\\s+${uid}\\s`, 'm'));
    const environ = (await host.run(['cat', `/proc/${pid}/environ`])).split('\0');
    assert.ok(environ.includes(`HOME=${layout.home}`));
    assert.ok(environ.includes(`OPENCLAW_STATE_DIR=${layout.state}`));
    assert.ok(environ.includes(`OPENCLAW_CONFIG_PATH=${layout.current}/openclaw.json`));
    assert.ok(environ.includes('OPENCLAW_GATEWAY_PORT=18800'));
    const password = (await host.run(['cat', layout.passwordFile])).trim();
    assert.ok(environ.includes(password));
  });

  test('a retry of a served activation does not restart the gateway', async () => {
    const before = await starts();
    const result = await ok(host, 'activate-revision', activateArgs(rev1, { OCC_IAM_TOKEN: 'opaque-abc123' }));
    assert.equal(result.unitChanged, false);
    assert.equal(result.readyMs, 0);
    assert.equal(await starts(), before);
  });

  test('a new placeholder value restarts the gateway with it, rewriting launch.env but not the unit', async () => {
    const unit = await host.run(['sha256sum', layout.unitFile]);
    const before = await starts();
    const result = await ok(host, 'activate-revision', activateArgs(rev1, { OCC_IAM_TOKEN: 'opaque-def456' }));
    assert.equal(result.unitChanged, false);
    assert.equal(await starts(), before + 1);
    assert.equal(await host.run(['sha256sum', layout.unitFile]), unit);
    const pid = (await host.run(['systemctl', 'show', '--property=MainPID', '--value', layout.unitName])).trim();
    assert.ok((await host.run(['cat', `/proc/${pid}/environ`])).split('\0').includes('OCC_IAM_TOKEN=opaque-def456'));
  });

  test('a unit written by an attempt cut before its daemon-reload is reloaded by the retry', async () => {
    // What the cut attempt left: served.json removed (the first step of a change), the file
    // holding what the retry renders, and systemd still running an older definition.
    const unit = await host.run(['cat', layout.unitFile]);
    const older = unit.replace('RestartSec=2\n', 'RestartSec=3\n');
    assert.notEqual(older, unit);
    await host.run(['tee', layout.unitFile], { input: older });
    await host.run(['systemctl', 'daemon-reload']);
    await host.run(['rm', layout.served]);
    await host.run(['tee', layout.unitFile], { input: unit });
    assert.equal((await host.run(['systemctl', 'show', '--property=NeedDaemonReload', '--value', layout.unitName])).trim(), 'yes');
    const result = await ok(host, 'activate-revision', activateArgs(rev1, { OCC_IAM_TOKEN: 'opaque-def456' }));
    assert.equal(result.unitChanged, false);
    assert.equal((await host.run(['systemctl', 'show', '--property=NeedDaemonReload', '--value', layout.unitName])).trim(), 'no');
    assert.equal((await host.run(['systemctl', 'show', '--property=RestartUSec', '--value', layout.unitName])).trim(), '2s');
  });

  test('verify-revision reports current and served only for the running revision', async () => {
    assert.deepEqual(await ok(host, 'verify-revision', { owner: who, revision: rev1.revision }), { snapshot: true, current: true, served: true, port: 18800 });
    assert.deepEqual(await ok(host, 'verify-revision', { owner: who, revision: rev2.revision }), { snapshot: true, current: false, served: false, port: 18800 });
  });

  test('cutover to a second revision keeps state and the password', async () => {
    const password = await host.run(['sha256sum', layout.passwordFile]);
    await host.run(['runuser', '-u', (await host.run(['stat', '-c', '%U', layout.state])).trim(), '--', 'touch', `${layout.state}/kept`]);
    const result = await ok(host, 'activate-revision', activateArgs(rev2));
    assert.ok(result.readyMs >= 300, `readiness waited for the gateway (${result.readyMs} ms)`);
    assert.equal((JSON.parse(await host.run(['cat', layout.served])) as { revisionId: string }).revisionId, rev2.revision.id);
    assert.equal(await exists(host, `${layout.state}/kept`), true);
    assert.equal(await host.run(['sha256sum', layout.passwordFile]), password);
    assert.doesNotMatch(await host.run(['cat', layout.launchEnvFile]), /OCC_IAM_TOKEN/, "the placeholders are each activation's own");
  });

  test('an activation is not refused by the start rate limit that quick restarts reach', async () => {
    // Restarts by hand until systemd refuses one (its default: 5 starts in 10 s), in one command on the
    // host: a round trip per restart can exceed 2 s on a loaded machine, and then the limit is never met.
    const loop = 'for i in $(seq 1 20); do systemctl restart "$1" || exit 0; done; exit 1';
    const refused = (await host.exec(['sh', '-c', loop, 'restarts', layout.unitName])).code === 0;
    assert.ok(refused, 'the unit reached its start rate limit');
    assert.match(await host.run(['systemctl', 'show', '--property=Result', '--value', layout.unitName]), /start-limit-hit/);
    const result = await ok(host, 'activate-revision', activateArgs(rev2));
    assert.ok(result.readyMs > 0, 'the activation restarted the gateway');
    assert.equal(await unitState(), 'active');
    assert.equal((JSON.parse(await host.run(['cat', layout.served])) as { revisionId: string }).revisionId, rev2.revision.id);
  });

  test('an activation asks systemd about the unit once before its restart (whether it is enabled is read from its links), and a new launch.env needs no reload', async () => {
    // A pass-through systemctl first on the helper's PATH records every call the helper makes.
    const log = '/run/occ-systemctl-calls';
    const wrapper = `#!/bin/sh\nprintf '%s\\n' "$*" >> ${log}\nexec /usr/bin/systemctl "$@"\n`;
    await host.run(['sh', '-c', `rm -f ${log} && cat > /usr/local/sbin/systemctl && chmod 0755 /usr/local/sbin/systemctl`], { input: wrapper });
    try {
      await ok(host, 'activate-revision', activateArgs(rev2, { OCC_ROUND: 'opaque-count' }));
    } finally {
      await host.run(['rm', '-f', '/usr/local/sbin/systemctl']);
    }
    const calls = (await host.run(['cat', log])).trim().split('\n');
    assert.deepEqual(calls.slice(0, calls.indexOf(`restart --no-block ${layout.unitName}`) + 1), [
      `show --property=LoadState,NeedDaemonReload,ActiveState,Result,InvocationID ${layout.unitName}`,
      `restart --no-block ${layout.unitName}`,
    ]);
  });

  test('a wants link removed by hand is made again by the next activation', async () => {
    const wants = `${UNIT_DIR}/multi-user.target.wants/${layout.unitName}`;
    await host.run(['rm', wants]);
    assert.equal(await unitEnabled(), 'disabled');
    await ok(host, 'activate-revision', activateArgs(rev2, { OCC_ROUND: 'opaque-relinked' }));
    assert.equal(await unitEnabled(), 'enabled');
    assert.equal((await host.run(['readlink', wants])).trim(), layout.unitFile);
  });

  test('retiring a non-current revision removes only its snapshot', async () => {
    const result = await ok(host, 'retire-revision', { owner: who, revision: rev1.revision });
    assert.deepEqual(result, { removed: true, wasCurrent: false });
    assert.equal(await exists(host, revisionLayout(layout.dir, rev1.revision.id).dir), false);
    assert.equal(await unitState(), 'active');
    assert.deepEqual(await ok(host, 'retire-revision', { owner: who, revision: rev1.revision }), { removed: false, wasCurrent: false });
  });

  test('a gateway that never becomes ready fails activation as retryable not-ready, without served.json', async () => {
    const rev3 = prepareArgs(who, 3, { fixtureGateway: { neverReady: true } });
    await ok(host, 'prepare-revision', rev3);
    const error = await fails(host, 'activate-revision', activateArgs(rev3, {}, 2000));
    assert.equal(error.code, 'not-ready');
    assert.equal(await exists(host, layout.served), false);
    assert.deepEqual(await ok(host, 'verify-revision', { owner: who, revision: rev3.revision }), { snapshot: true, current: true, served: false, port: 18800 });
  });

  test('a gateway that exits at start fails activation as not-ready', async () => {
    const rev4 = prepareArgs(who, 4, { fixtureGateway: { exitAtStart: true } });
    await ok(host, 'prepare-revision', rev4);
    const error = await fails(host, 'activate-revision', activateArgs(rev4, {}, 2000));
    assert.equal(error.code, 'not-ready');
  });

  test('launch environment that is not opaque is refused by the helper before anything changes', async () => {
    const unit = await host.run(['sha256sum', layout.unitFile]);
    const envelope = envelopeFor(host, 'activate-revision', activateArgs(rev2, { OCC_TOKEN: 'sk-plaintext' }));
    const { line } = await callRaw(host, unvalidatedArgument(envelope));
    assert.equal(line?.ok, false);
    assert.equal(line.ok ? undefined : line.error.code, 'configuration');
    assert.doesNotMatch(JSON.stringify(line), /sk-plaintext/);
    assert.equal(await host.run(['sha256sum', layout.unitFile]), unit);
  });

  test('a unit file without the exact ownership header is refused, never adopted', async () => {
    const original = await host.run(['cat', layout.unitFile]);
    await host.run(['sed', '-i', 's/^# X-OCC-Agent-Id=.*/# X-OCC-Agent-Id=someone-else/', layout.unitFile]);
    const error = await fails(host, 'activate-revision', activateArgs(rev2));
    assert.equal(error.code, 'ownership');
    assert.equal(error.path, layout.unitFile);
    assert.match(await host.run(['cat', layout.unitFile]), /someone-else/);
    await host.run(['tee', layout.unitFile], { input: original });
  });

  test('activating a revision that was never staged is refused', async () => {
    const error = await fails(host, 'activate-revision', activateArgs(prepareArgs(who, 9)));
    assert.equal(error.code, 'ownership');
  });

  test('stop disables the unit and removes current and served.json, keeping snapshots, home, state and password', async () => {
    // Recovery from the failed revisions goes forward: a new revision, never an older snapshot.
    await ok(host, 'prepare-revision', rev5);
    await ok(host, 'activate-revision', activateArgs(rev5));
    const result = await ok(host, 'stop-revision', { owner: who, revision: rev5.revision });
    assert.deepEqual(result, { unitFound: true, currentRemoved: true });
    assert.equal(await unitState(), 'inactive');
    assert.equal(await unitEnabled(), 'disabled');
    for (const path of [layout.current, layout.served, layout.launchEnvFile]) assert.equal(await exists(host, path), false);
    for (const path of [revisionLayout(layout.dir, rev5.revision.id).config, layout.home, `${layout.state}/kept`, layout.passwordFile]) assert.equal(await exists(host, path), true);
  });

  test('a later activation starts the stopped Agent again', async () => {
    await ok(host, 'activate-revision', activateArgs(rev5));
    assert.equal(await unitState(), 'active');
  });

  test('the compile cache in home/ is kept within its bound on each restart, as the Agent, never followed as root', async () => {
    const account = (await host.run(['stat', '-c', '%U', layout.state])).trim();
    const asAgent = (argv: string[]) => host.run(['runuser', '-u', account, '--', ...argv]);
    const restart = (round: string) => ok(host, 'activate-revision', activateArgs(rev5, { OCC_ROUND: `opaque-${round}` }));
    const pid = (await host.run(['systemctl', 'show', '--property=MainPID', '--value', layout.unitName])).trim();
    assert.ok((await host.run(['cat', `/proc/${pid}/environ`])).split('\0').includes(`NODE_COMPILE_CACHE=${layout.compileCache}`));
    await asAgent(['mkdir', '-p', `${layout.compileCache}/openclaw/old`]);
    await asAgent(['truncate', '-s', '1M', `${layout.compileCache}/openclaw/old/small`]);
    await restart('a');
    assert.equal(await exists(host, `${layout.compileCache}/openclaw/old/small`), true, 'a cache within the bound is kept');
    await asAgent(['truncate', '-s', '300M', `${layout.compileCache}/openclaw/old/big`]);
    await restart('b');
    assert.equal(await exists(host, `${layout.compileCache}/openclaw/old`), false, 'a cache over the bound is removed');
    // A symlink the Agent plants in its place leads root nowhere: nothing behind it is measured or removed.
    await host.run(['mkdir', '-p', '/root/cache-target']);
    await host.run(['truncate', '-s', '300M', '/root/cache-target/big']);
    await asAgent(['rm', '-rf', layout.compileCache]);
    await asAgent(['ln', '-s', '/root/cache-target', layout.compileCache]);
    await restart('c');
    assert.equal(await exists(host, '/root/cache-target/big'), true);
    await asAgent(['rm', layout.compileCache]);
  });

  test("a compile cache of 200 000 files the Agent planted is trimmed outside the host lock: the activation's lock hold stays short", async () => {
    const account = (await host.run(['stat', '-c', '%U', layout.state])).trim();
    // The bound is relative to this host now: the same activation's hold with no cache to trim.
    const baseline = await call(host, 'activate-revision', activateArgs(rev5, { OCC_ROUND: 'opaque-baseline' }));
    assert.equal(baseline.line?.ok, true, baseline.stdout.slice(-500));
    const bound = Math.max(2500, 3 * (baseline.line.timings.lockHoldMs ?? 0));
    const planted = `${layout.compileCache}/openclaw/planted`;
    const plant = 'mkdir -p "$1" && cd "$1" && for d in $(seq 1 200); do mkdir "$d" && (cd "$d" && seq 1 1000 | xargs touch); done && truncate -s 300M big';
    await host.run(['runuser', '-u', account, '--', 'sh', '-c', plant, 'plant', planted], { timeoutMs: 300_000 });
    assert.equal((await host.run(['sh', '-c', 'find "$1" -type f | wc -l', 'count', planted])).trim(), '200001');
    const outcome = await call(host, 'activate-revision', activateArgs(rev5, { OCC_ROUND: 'opaque-planted' }));
    assert.equal(outcome.line?.ok, true, outcome.stdout.slice(-500));
    const { lockHoldMs, totalMs } = outcome.line.timings;
    process.stderr.write(`# 200 000-file compile cache: lock held ${String(lockHoldMs)} ms of an activation of ${totalMs} ms (bound ${bound} ms)\n`);
    assert.ok(lockHoldMs !== undefined && lockHoldMs < bound, `lock held ${String(lockHoldMs)} ms, bound ${bound} ms`);
    const left = Number((await host.run(['sh', '-c', 'find "$1" -type f 2>/dev/null | wc -l', 'count', layout.compileCache])).trim());
    assert.ok(left < 200_001, `the trim ran (${left} files left); a cut removal resumes at the next activation`);
    await host.run(['runuser', '-u', account, '--', 'rm', '-rf', layout.compileCache]);
  });

  test('retiring the current revision stops the unit and removes the pointer first', async () => {
    const result = await ok(host, 'retire-revision', { owner: who, revision: rev5.revision });
    assert.deepEqual(result, { removed: true, wasCurrent: true });
    assert.equal(await unitState(), 'inactive');
    assert.equal(await exists(host, layout.current), false);
    assert.equal(await exists(host, layout.served), false);
    assert.equal(await exists(host, `${layout.state}/kept`), true);
  });
});
