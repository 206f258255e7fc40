// Real-host proof that only root can touch the host lock: a compromised gateway, or an Agent account
// holding a descriptor from before the upgrade, cannot stall the host, and a planted lock path is refused.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { namespaceLayout } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, accountOf, activateArgs, call, fails, installTenantGateway, layoutOf, ok, owner, prepareArgs, shell, statOf } from '@occ-ssh/test-support';

const LOCK = `${ROOT}/.compute-lock`;

// The attack a compromised gateway runs as its Agent's account: hold the host lock shared for 15 minutes.
const LOCK_HOLDER_ATTACK = `
const { spawn } = require('node:child_process');
const { appendFileSync } = require('node:fs');
const log = process.env.OPENCLAW_STATE_DIR + '/lock-attack.log';
const holder = spawn('/usr/bin/flock', ['--shared', ${JSON.stringify(LOCK)}, '/usr/bin/sleep', '900'], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
let stderr = '';
holder.stderr.on('data', (chunk) => { stderr += chunk; });
holder.on('exit', (code) => appendFileSync(log, JSON.stringify({ code, stderr }) + '\\n'));
holder.unref();
`;

describe('the host lock against hostile tenants on a real host', () => {
  let host: TestHost;
  const treeHash = () => shell(host, `find ${ROOT} ${UNIT_DIR} -printf '%p %u %g %m %i %n %y %l\\n' 2>/dev/null | sort | sha256sum`);
  const inode = async () => (await host.run(['stat', '-c', '%i', LOCK])).trim();
  const uidOf = async (account: string) => (await host.run(['id', '-u', account])).trim();
  const legacyLock = () => host.run(['sh', '-c', `rm -rf ${LOCK} && install -m 0644 -o root -g root /dev/null ${LOCK}`]);
  const sharedHolders = async () => (await shell(host, `grep -c " FLOCK  ADVISORY  READ .*:$(stat -c %i ${LOCK}) " /proc/locks || true`)).trim();
  const tenant = owner('tenant', 'tenant');

  before(async () => {
    host = await startTestHost({ name: 'htlock' });
  });
  after(() => host?.down());

  test('on a fresh root the lock file is root:root 0600 and no Agent account can open it', async () => {
    await ok(host, 'ensure-namespace', { namespace: tenant.namespace });
    await ok(host, 'prepare-revision', prepareArgs(tenant, 1));
    assert.equal(await statOf(host, LOCK), 'root:root 600 regular empty file');
    const uid = await uidOf(accountOf(tenant));
    for (const argv of [
      ['cat', LOCK],
      ['flock', '--shared', '--nonblock', LOCK, 'true'],
    ]) {
      const attempt = await host.exec(['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', ...argv]);
      assert.notEqual(attempt.code, 0, `${argv.join(' ')} as the Agent's account`);
      assert.match(attempt.stderr, /Permission denied/);
    }
  });

  test("a compromised gateway holding the lock delays neither a sibling Namespace's ensure-namespace nor its own stop", async () => {
    const who = owner('holder', 'holder');
    const runtime = { openclawPath: await installTenantGateway(host, 'lock-holder', LOCK_HOLDER_ATTACK) };
    await ok(host, 'ensure-namespace', { namespace: who.namespace }, { runtime });
    const rev = prepareArgs(who, 1);
    await ok(host, 'prepare-revision', rev, { runtime });
    await ok(host, 'activate-revision', activateArgs(rev), { runtime });
    const log = `${layoutOf(who).state}/lock-attack.log`;
    let attack = '';
    for (let i = 0; i < 100 && !attack; i += 1) {
      attack = (await host.exec(['cat', log])).stdout.trim();
      if (!attack) await sleep(100);
    }
    const { code, stderr } = JSON.parse(attack) as { code: number; stderr: string };
    assert.notEqual(code, 0, "the gateway's flock did not take the lock");
    // Inside the unit the root is an empty read-only tmpfs (flock's O_CREAT there fails read-only);
    // the root 0600 file itself refuses the account outside it (the fresh-root test above).
    assert.match(stderr, /cannot open lock file .*(Permission denied|No such file or directory|Read-only file system)/);

    const sibling = owner('sibling', 'sibling');
    const ensure = await call(host, 'ensure-namespace', { namespace: sibling.namespace });
    assert.ok(ensure.line?.ok, JSON.stringify(ensure.line));
    process.stderr.write(`# sibling ensure-namespace with a lock-holding gateway: ${ensure.ms} ms, lock wait ${ensure.line.timings.lockWaitMs} ms\n`);
    assert.ok(ensure.ms < 10_000, `took ${ensure.ms} ms`);
    const stop = await call(host, 'stop-revision', { owner: who, revision: rev.revision }, { runtime });
    assert.ok(stop.line?.ok, JSON.stringify(stop.line));
    process.stderr.write(`# its own stop-revision: ${stop.ms} ms\n`);
    assert.ok(stop.ms < 20_000, `stop took ${stop.ms} ms`);
  });

  test('a planted symlink, directory, fifo or hard link at the lock path is refused as host-requirement naming it, with nothing changed', async () => {
    const plants = {
      symlink: `install -m 0600 /dev/null /run/occ-elsewhere && ln -s /run/occ-elsewhere ${LOCK}`,
      directory: `mkdir -m 0700 ${LOCK}`,
      fifo: `mkfifo -m 0600 ${LOCK}`,
      'hard link': `install -m 0600 /dev/null ${ROOT}/occ-other && ln ${ROOT}/occ-other ${LOCK}`,
    };
    const who = owner('planted', 'planted');
    try {
      for (const [kind, plant] of Object.entries(plants)) {
        await shell(host, `rm -rf ${LOCK} ${ROOT}/occ-other /run/occ-elsewhere && ${plant}`);
        const before = await treeHash();
        const error = await fails(host, 'ensure-namespace', { namespace: who.namespace });
        assert.deepEqual([error.code, error.path], ['host-requirement', LOCK], `${kind}: ${JSON.stringify(error)}`);
        assert.equal(await treeHash(), before, `${kind}: nothing changed`);
        assert.equal((await host.exec(['test', '-e', namespaceLayout(ROOT, who.namespace.id).dir])).code, 1);
      }
    } finally {
      await shell(host, `rm -rf ${LOCK} ${ROOT}/occ-other /run/occ-elsewhere`);
    }
  });

  test('an Agent account holding a legacy root 0644 lock file from before the upgrade cannot stall the host: the file is replaced', async () => {
    await legacyLock();
    const legacy = await inode();
    const uid = await uidOf(accountOf(tenant));
    await host.run(['systemd-run', '--unit=occ-legacy-holder', '--collect', `--uid=${uid}`, `--gid=${uid}`, 'flock', '--shared', LOCK, 'sleep', '300']);
    try {
      for (let i = 0; i < 50 && (await sharedHolders()) === '0'; i += 1) await sleep(100);
      assert.equal(await sharedHolders(), '1', "the Agent's account holds the legacy lock");
      const ensure = await call(host, 'ensure-namespace', { namespace: owner('upgrade', 'upgrade').namespace });
      assert.ok(ensure.line?.ok, JSON.stringify(ensure.line));
      process.stderr.write(`# ensure-namespace past a tenant holding the legacy lock: ${ensure.ms} ms\n`);
      assert.ok(ensure.ms < 10_000, `took ${ensure.ms} ms`);
      assert.notEqual(await inode(), legacy, 'a new inode at the lock path');
      assert.equal(await statOf(host, LOCK), 'root:root 600 regular empty file');
      assert.equal((await host.exec(['systemctl', 'is-active', 'occ-legacy-holder'])).stdout.trim(), 'active', 'the tenant still holds the old inode, to no effect');
    } finally {
      await host.exec(['systemctl', 'stop', 'occ-legacy-holder']);
    }
  });

  test('a legacy lock file held by a root process (an older helper mid-operation) is waited for, then replaced', async () => {
    await legacyLock();
    const legacy = await inode();
    const holder = (await shell(host, `setsid flock --exclusive ${LOCK} sleep 4 </dev/null >/dev/null 2>&1 & echo $!`)).trim();
    await sleep(300);
    const ensure = await call(host, 'ensure-namespace', { namespace: owner('older', 'older').namespace });
    assert.ok(ensure.line?.ok, JSON.stringify(ensure.line));
    process.stderr.write(`# ensure-namespace behind a root holder of the legacy lock (4 s): lock wait ${ensure.line.timings.lockWaitMs} ms\n`);
    assert.ok((ensure.line.timings.lockWaitMs ?? 0) >= 2000, `waited ${ensure.line.timings.lockWaitMs} ms for the older helper`);
    assert.equal((await host.exec(['kill', '-0', holder])).code, 1, 'the older helper had finished before this one went on');
    assert.notEqual(await inode(), legacy);
    assert.equal(await statOf(host, LOCK), 'root:root 600 regular empty file');
  });

  test('a legacy lock file a root process holds past 30 s ends in a retryable lock-timeout, with the file left as it was', async () => {
    await legacyLock();
    const legacy = await inode();
    const holder = (await shell(host, `setsid flock --exclusive ${LOCK} sleep 45 </dev/null >/dev/null 2>&1 & echo $!`)).trim();
    try {
      await sleep(300);
      const who = owner('late', 'late');
      const outcome = await call(host, 'ensure-namespace', { namespace: who.namespace });
      assert.equal(outcome.line?.ok, false, JSON.stringify(outcome.line));
      assert.deepEqual([outcome.line.error.code, outcome.line.error.path], ['lock-timeout', LOCK]);
      assert.ok(outcome.ms >= 30_000 && outcome.ms < 40_000, `gave up after ${outcome.ms} ms`);
      assert.equal(await inode(), legacy, 'not replaced while a root process held it');
      assert.equal((await host.exec(['test', '-e', namespaceLayout(ROOT, who.namespace.id).dir])).code, 1);
    } finally {
      await host.exec(['kill', '--', `-${holder}`]);
    }
  });
});
