// Three real hosts at once: systemd, accounts, flock over strict ssh, then nothing left behind.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestHost, type TestHost } from './index.js';
import { readHostRecord, slotDir } from './host-record.js';
import { leftoversOf } from './leftovers.js';
import { runSync } from './command.js';
import { reapTestHosts } from './reap.js';
import { sshExec } from './ssh.js';
import { claimedSlots, testRangeRouted } from './test-range.js';

/** pgrep for the ssh master of a host's calls: ssh titles it `ssh: <control path> [mux]`. */
const masterOf = (name: string) => runSync('pgrep', ['-a', '-f', `^ssh: [^ ]*/hosts/${name}/mux \\[mux\\]$`]);

describe('three test hosts at once', { timeout: 15 * 60_000 }, () => {
  let hosts: TestHost[] = [];

  before(async () => {
    hosts = await Promise.all([startTestHost(), startTestHost(), startTestHost()]);
  });
  after(async () => {
    await Promise.all(hosts.map((h) => h.down()));
  });

  it('get distinct names, addresses and host keys', async () => {
    assert.equal(new Set(hosts.map((h) => h.name)).size, 3);
    assert.equal(new Set(hosts.map((h) => h.address)).size, 3);
    for (const h of hosts) assert.match(h.address, /^10\.213\.\d+\.2$/);
    const keys = await Promise.all(hosts.map((h) => h.run(['cat', '/etc/ssh/ssh_host_ed25519_key.pub'])));
    assert.equal(new Set(keys.map((k) => k.split(' ')[1])).size, 3);
    const ids = await Promise.all(hosts.map((h) => h.run(['cat', '/etc/machine-id'])));
    assert.equal(new Set(ids).size, 3);
  });

  it('run systemd as init, fully started', async () => {
    for (const h of hosts) {
      const r = await h.exec(['systemctl', 'is-system-running', '--wait'], { timeoutMs: 120_000 });
      const failed = r.stdout.trim() === 'running' ? '' : await h.run(['systemctl', '--failed', '--no-legend', '--plain']);
      assert.equal(r.stdout.trim(), 'running', `${h.name}: ${r.stdout}${r.stderr}failed units: ${failed}`);
      assert.equal((await h.run(['hostname'])).trim(), h.name);
      assert.equal((await h.run(['readlink', '/proc/1/exe'])).trim(), '/usr/lib/systemd/systemd');
      assert.match(await h.run([h.nodePath, '-p', 'process.version']), /^v24\./);
    }
  });

  it('each live in a cgroup subtree of their own', async () => {
    // Without this, every container's systemd would manage one shared cgroup tree.
    const roots = hosts.map((h) => {
      const nspawn = readHostRecord(h.name)?.nspawn;
      assert.ok(nspawn, `${h.name} has a recorded nspawn`);
      const init = readFileSync(`/proc/${nspawn.pid}/task/${nspawn.pid}/children`, 'utf8').trim().split(' ')[0];
      assert.match(readFileSync(`/proc/${nspawn.pid}/cgroup`, 'utf8'), new RegExp(`^0::/occ-testhosts/${h.name}/supervisor$`, 'm'));
      const initCgroup = readFileSync(`/proc/${init}/cgroup`, 'utf8');
      assert.match(initCgroup, new RegExp(`^0::/occ-testhosts/${h.name}/payload/`, 'm'));
      return initCgroup;
    });
    assert.equal(new Set(roots).size, 3);
  });

  it('manage accounts and locks over strict ssh', async () => {
    await Promise.all(
      hosts.map(async (h) => {
        await h.run(['useradd', '--system', '--home-dir', '/var/lib/occ agent', '--create-home', '--shell', '/usr/sbin/nologin', 'occagent']);
        const entry = (await h.run(['getent', 'passwd', 'occagent'])).trim().split(':');
        assert.equal(entry[0], 'occagent');
        assert.equal(entry[5], '/var/lib/occ agent', 'argv with a space survives the remote shell');
        assert.ok(Number(entry[2]) < 1000, 'a system uid');
        assert.equal((await h.exec(['getent', 'passwd', 'nobody-here'])).code, 2);
        // A lock held by one process makes a non-blocking second attempt fail with 1, then frees up.
        const script = 'flock /run/occ.lock sleep 2 & sleep 0.5; flock --nonblock /run/occ.lock true; echo "busy=$?"; wait; flock --nonblock /run/occ.lock true; echo "free=$?"';
        assert.equal((await h.run(['sh', '-c', script])).trim(), 'busy=1\nfree=0');
        await h.run(['userdel', '--remove', 'occagent']);
        assert.equal((await h.exec(['getent', 'passwd', 'occagent'])).code, 2);
      }),
    );
  });

  it('pass stdin through and report exit codes and stderr', async () => {
    const h = hosts[0]!;
    assert.equal(await h.run(['sha256sum'], { input: 'abc' }), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  -\n');
    const r = await h.exec(['sh', '-c', 'echo oops >&2; exit 7']);
    assert.deepEqual([r.code, r.stderr.trim()], [7, 'oops']);
    await assert.rejects(h.run(['false']), /exited 1/);
    const slow = await h.exec(['sleep', '30'], { timeoutMs: 1000 });
    assert.equal(slow.code, null);
  });

  it('share one connection per host across calls, and take more than the 10 sessions sshd allows one connection', async () => {
    const h = hosts[1]!;
    // SSH_CONNECTION names the client's port: one port for every call is one connection.
    const ports = new Set<string>();
    for (let i = 0; i < 3; i++) ports.add((await h.run(['sh', '-c', 'echo $SSH_CONNECTION'])).split(' ')[1]!);
    assert.equal(ports.size, 1, [...ports].join(' '));
    // Past MaxSessions the master refuses a session and ssh opens a connection of its own.
    const outs = await Promise.all(Array.from({ length: 14 }, (_, i) => h.run(['sh', '-c', `sleep 1; echo ${i}`])));
    assert.deepEqual(
      outs.map((o) => Number(o)),
      Array.from({ length: 14 }, (_, i) => i),
    );
  });

  it('refuse ssh when known_hosts does not match', async () => {
    const [a, b] = [hosts[0]!, hosts[1]!];
    const bKey = (await b.run(['cat', '/etc/ssh/ssh_host_ed25519_key.pub'])).split(' ').slice(0, 2).join(' ');
    const dir = tmpdir();
    const wrong = path.join(dir, `occ-wrong-kh-${process.pid}`);
    await writeFile(wrong, `${a.address} ${bKey}\n`);
    const empty = path.join(dir, `occ-empty-kh-${process.pid}`);
    await writeFile(empty, '');
    for (const knownHostsFile of [wrong, empty]) {
      const r = await sshExec({ address: a.address, port: 22, user: 'root', identityFile: a.identityFile, knownHostsFile }, ['true']);
      assert.equal(r.code, 255, r.stderr);
      assert.match(r.stderr, /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/);
    }
    assert.equal((await a.exec(['true'])).code, 0, 'the right known_hosts still works');
  });

  it('have no route out and no resolver', async () => {
    const h = hosts[2]!;
    assert.equal((await h.run(['ip', 'route'])).trim().split('\n').length, 1);
    assert.doesNotMatch(await h.run(['cat', '/etc/resolv.conf']), /nameserver/);
    const r = await h.exec(['curl', '-sS', '--max-time', '3', 'http://198.51.100.1/']);
    assert.notEqual(r.code, 0);
  });

  it('keep the whole test range on the machine: a range address with no live host has no route', () => {
    assert.ok(testRangeRouted());
    const gone = runSync('ip', ['-4', 'route', 'get', '10.213.254.6']);
    assert.notEqual(gone.code, 0);
    assert.match(gone.stderr, /No route to host|unreachable/);
    assert.doesNotMatch(gone.stdout, / via /, 'never the default gateway');
    for (const h of hosts) assert.match(runSync('ip', ['-4', 'route', 'get', h.address]).stdout, new RegExp(`dev ve-${h.name} `));
  });

  it('leave no mount, veth, netns, cgroup, process or slot behind', async () => {
    const names = hosts.map((h) => ({ name: h.name, index: Number(h.address.split('.')[2]) }));
    for (const { name, index } of names) assert.ok(leftoversOf(name, index).length > 0, 'sanity: a running host is visible');
    await Promise.all(hosts.map((h) => h.run(['true'])));
    for (const { name } of names) assert.equal(masterOf(name).code, 0, `sanity: ${name} has a master connection`);
    // A host brought down while others live leaves its address under the range route, unless its
    // slot was claimed again meanwhile (by another run on this machine) and a new host lives there.
    await hosts[0]!.down();
    const route = runSync('ip', ['-4', 'route', 'get', hosts[0]!.address]);
    if (existsSync(slotDir(names[0]!.index))) assert.match(route.stdout, / dev ve-/);
    else assert.match(route.stderr, /No route to host/);
    await Promise.all(hosts.map((h) => h.down()));
    await hosts[0]!.down();
    await assert.rejects(hosts[0]!.exec(['true']), /is down/);
    for (const { name, index } of names) assert.deepEqual(leftoversOf(name, index), [], name);
    // No master connection outlives its host.
    for (const { name } of names) assert.equal(masterOf(name).code, 1, `${name}: ${masterOf(name).stdout}`);
    // The range route goes with the last claimed slot (another work dir's live host keeps it).
    assert.equal(testRangeRouted(), claimedSlots() > 0);
    await reapTestHosts();
    assert.equal(testRangeRouted(), claimedSlots() > 0);
  });
});
