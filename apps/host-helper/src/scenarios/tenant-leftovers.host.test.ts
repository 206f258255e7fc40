// Real-host proof that a UID starts clean: a compromised gateway plants everything it can outside its
// tree (files in the world-writable directories, directly and through the /proc entries of the helper's
// children that run as its account, IPC objects, processes), its Agent is deleted, and the next Agent,
// which receives the same UID, finds nothing of it.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { accountOf, activateArgs, call, installTenantGateway, layoutOf, ok, owner, prepareArgs, shell } from '@occ-ssh/test-support';

/** Every world-writable place a file could be left in, on the root file system or its own mount. */
const PLACES = ['/tmp', '/var/tmp', '/dev/shm', '/run/lock', '/dev/mqueue', '/var/lib/systemd', '/var/cache', '/var/crash'];

/**
 * The attack, run as the Agent inside its unit at gateway start: write to each place directly, make
 * SysV IPC objects, then watch /proc for processes of its UID outside its unit (the helper's
 * as-account children), stop each, write through its /proc root and cwd (the host's, not the
 * sandbox's), and let it go on. (PrivateUsers= hides them: the unit's user namespace has no right to
 * them, so the log shows none.)
 */
const PLANTING_ATTACK = `
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const state = process.env.OPENCLAW_STATE_DIR;
const log = (entry) => fs.appendFileSync(state + '/plant.log', JSON.stringify(entry) + '\\n');
const places = ${JSON.stringify(PLACES)};
const tag = 'occ-planted-' + process.getuid();
for (const place of places) {
  try { fs.writeFileSync(place + '/' + tag + '-direct', 'x'); log({ direct: place }); } catch (e) { log({ direct: place, error: e.code }); }
}
for (const kind of ['-M', '-Q', '-S']) {
  try { execFileSync('/usr/bin/ipcmk', kind === '-M' ? [kind, '4096'] : kind === '-S' ? [kind, '1'] : [kind], { stdio: 'ignore' }); log({ ipc: kind }); } catch (e) { log({ ipc: kind, error: String(e.code || e.status) }); }
}
fs.mkdirSync(process.env.NODE_COMPILE_CACHE, { recursive: true });
const ownCgroup = fs.readFileSync('/proc/self/cgroup', 'utf8');
const planted = new Set();
function tick() {
  let names = [];
  try { names = fs.readdirSync('/proc'); } catch {}
  for (const name of names) {
    if (!/^[0-9]+$/.test(name) || Number(name) === process.pid) continue;
    let cgroup;
    try { cgroup = fs.readFileSync('/proc/' + name + '/cgroup', 'utf8'); } catch { continue; }
    if (cgroup === ownCgroup) continue;
    if (!planted.has(name)) {
      planted.add(name);
      try { process.kill(Number(name), 'SIGSTOP'); } catch {}
      for (const via of ['root', 'cwd']) {
        for (const place of places) {
          const path = '/proc/' + name + '/' + via + (via === 'root' ? place : '/.' + place) + '/' + tag + '-' + via;
          try { fs.writeFileSync(path, 'x'); log({ via, place, pid: name }); } catch (e) { log({ via, place, pid: name, error: e.code }); }
        }
      }
      try { process.kill(Number(name), 'SIGCONT'); } catch {}
    }
  }
  setTimeout(tick, 2);
}
tick();
`;

describe('a UID starts clean after its Agent is deleted', { timeout: 10 * 60_000 }, () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({ name: 'hleftover' });
  });
  after(() => host?.down());

  /** What the UID owns anywhere on the host, its processes and IPC objects, one line each. */
  async function leftovers(uid: string): Promise<string[]> {
    const files = await shell(host, `find / -xdev -uid ${uid} 2>/dev/null; find ${PLACES.join(' ')} /run -xdev -uid ${uid} 2>/dev/null; true`);
    const processes = await shell(host, `ps -o pid=,stat=,args= -u ${uid} || true`);
    // Owner and creator columns: uid and cuid of shm and msg, of sem further left.
    const ipc = await shell(
      host,
      `awk -v u=${uid} 'FNR > 1 && (FILENAME ~ /sem$/ ? ($5 == u || $7 == u) : ($8 == u || $10 == u)) { print FILENAME ": " $0 }' /proc/sysvipc/shm /proc/sysvipc/msg /proc/sysvipc/sem`,
    );
    return [...new Set([...files.split('\n'), ...processes.split('\n').map((line) => `process ${line.trim()}`), ...ipc.split('\n')])].filter((line) => line.trim() && line !== 'process ');
  }

  test('everything the gateway planted goes with its Agent, and the next Agent with the same UID finds none of it', async () => {
    const planter = owner('planter', 'leftover');
    const runtime = { openclawPath: await installTenantGateway(host, 'planter', PLANTING_ATTACK) };
    await ok(host, 'ensure-namespace', { namespace: planter.namespace }, { runtime });
    const first = prepareArgs(planter, 1);
    await ok(host, 'prepare-revision', first, { runtime });
    await ok(host, 'activate-revision', activateArgs(first), { runtime });
    // A redeploy: activation trims the compile cache with `du` as the account, which the gateway watches for.
    const second = prepareArgs(planter, 2);
    await ok(host, 'prepare-revision', second, { runtime });
    await ok(host, 'activate-revision', activateArgs(second), { runtime });
    await sleep(500);
    const uid = (await host.run(['id', '-u', accountOf(planter)])).trim();
    const log = await host.run(['cat', `${layoutOf(planter).state}/plant.log`]);
    process.stderr.write(`# what the gateway tried (uid ${uid}):\n${log.replace(/^/gm, '#   ')}\n`);
    const planted = await leftovers(uid);
    process.stderr.write(
      `# owned by uid ${uid} outside its tree before deletion:\n${planted
        .filter((line) => !line.includes('/var/lib/openclaw-enterprise/'))
        .join('\n')
        .replace(/^/gm, '#   ')}\n`,
    );

    // What the sandbox leaves the gateway no way to make, but a won race in an as-account write or a
    // child of the helper left behind would: planted as the account outside its unit, as such a child runs.
    const gid = (await host.run(['id', '-g', accountOf(planter)])).trim();
    const asAccount = `setpriv --reuid=${uid} --regid=${gid} --clear-groups`;
    await shell(
      host,
      [
        ...PLACES.map((place) => `${asAccount} sh -c 'echo x > ${place}/occ-raced-${uid}' 2>/dev/null || true`),
        `${asAccount} mkdir /tmp/occ-raced-dir-${uid} && ${asAccount} touch /tmp/occ-raced-dir-${uid}/inner`,
        `${asAccount} ipcmk -M 4096 && ${asAccount} ipcmk -Q && ${asAccount} ipcmk -S 1`,
      ].join('\n'),
    );
    // A child left stopped: started apart from the shell, then stopped by its PID.
    await shell(host, `setsid -f ${asAccount} sleep 600 </dev/null >/dev/null 2>&1`);
    await shell(host, `for i in 1 2 3 4 5 6 7 8 9 10; do p=$(pgrep -u ${uid} -x sleep) && break; sleep 0.1; done; kill -STOP $p`);
    await sleep(300);
    const raced = await leftovers(uid);
    process.stderr.write(
      `# planted as the account outside its unit:\n${raced
        .filter((line) => !line.includes('/var/lib/openclaw-enterprise/'))
        .join('\n')
        .replace(/^/gm, '#   ')}\n`,
    );
    assert.ok(
      raced.some((line) => line.startsWith('/proc/sysvipc/shm')) && raced.some((line) => line.includes('sleep 600')) && raced.some((line) => line.includes('occ-raced-dir')),
      'the stand-ins are in place',
    );

    const deletion = await call(host, 'delete-agent', { owner: planter });
    assert.ok(deletion.line?.ok, JSON.stringify(deletion.line));
    process.stderr.write(`# delete-agent with the sweep: ${deletion.ms} ms, lock held ${deletion.line.timings.lockHoldMs} ms\n`);
    assert.equal((await host.exec(['id', '-u', accountOf(planter)])).code, 1, 'the account is gone');
    assert.deepEqual(await leftovers(uid), [], `nothing of uid ${uid} is left on the host`);

    // The next account made gets the freed UID, and finds nothing of its predecessor's.
    const heir = owner('heir', 'leftover');
    await ok(host, 'ensure-namespace', { namespace: heir.namespace });
    await ok(host, 'prepare-revision', prepareArgs(heir, 1));
    assert.equal((await host.run(['id', '-u', accountOf(heir)])).trim(), uid, 'useradd --system handed the freed UID to the next account');
    process.stderr.write(`# the heir ${accountOf(heir)} received uid ${uid}\n`);
    const inherited = (await leftovers(uid)).filter((line) => !line.includes('/var/lib/openclaw-enterprise/'));
    assert.deepEqual(inherited, [], 'the heir owns nothing outside its own tree');
  });
});
