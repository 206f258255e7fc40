// OpenSshMuxExecutor against a real systemd + OpenSSH test host: strict argv, one master, cleanup.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HostLimiter } from '../limiter.js';
import { hashHostName } from './known-hosts.js';
import { OpenSshMuxExecutor, checkPrivateDirectory } from './openssh-mux.js';
import { sshArgv } from '@occ-ssh/ssh-client';
import { PROBE, otherEd25519Key, reports, transportRequests, useTransportHost, waitFor } from '../../test/transport-host.js';

/** Local ssh processes whose command line names the control directory (masters and clients). */
function localSshProcesses(directory: string): string[] {
  const out = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout;
  return out.split('\n').filter((line) => line.includes(directory) && /\bssh\b/.test(line));
}

function sockets(directory: string): string[] {
  return existsSync(directory) ? readdirSync(directory) : [];
}

describe('OpenSshMuxExecutor on a real host', { timeout: 240_000 }, () => {
  const t = useTransportHost('sshmux', 'occ-mux-test-');
  const { request, knownHostsFile, otherSessions } = transportRequests(t);

  it('runs the strict argv plus multiplexing options from a private control directory', async () => {
    const mux = new OpenSshMuxExecutor(t.settings);
    try {
      const result = await mux.execute(request({ echo: 'hello' }));
      assert.equal(result.exitCode, 0);
      assert.equal(result.transportFailed, false);
      assert.deepEqual(
        reports(result).map((r) => r.echo),
        ['hello'],
      );

      const control = String(await mux.controlDirectory());
      assert.ok(control.startsWith(join(tmpdir(), 'occ-ssh-mux-')), control);
      const stat = statSync(control);
      assert.equal(stat.mode & 0o777, 0o700);
      assert.equal(stat.uid, process.getuid?.());
      const multiplex = ['-o', 'ControlMaster=auto', '-o', `ControlPath=${control}/%C`, '-o', 'ControlPersist=60'];
      const call = { argv: [t.host.nodePath, '-', 'x'], stdin: PROBE };
      assert.deepEqual(await mux.argv({ host: t.target, call }), sshArgv(t.settings, t.target, `${t.host.nodePath} - x`, multiplex));
    } finally {
      await mux.close();
    }
  });

  it('refuses a host whose key differs from known_hosts: transportFailed and nothing ran', async () => {
    const [address, type] = t.hostKeyLine.split(' ');
    const mux = new OpenSshMuxExecutor({ ...t.settings, knownHostsFile: knownHostsFile('wrong', `${address} ${type} ${otherEd25519Key()}\n`) });
    const marker = `/tmp/mux-wrong-${randomUUID()}`;
    try {
      const result = await mux.execute(request({ marker }));
      assert.equal(result.transportFailed, true);
      assert.equal(result.exitCode, 255);
      assert.equal(result.stdout, '');
      assert.equal((await t.host.exec(['test', '-e', marker])).code, 1, 'the command must not have run');
    } finally {
      await mux.close();
    }
  });

  it('accepts a hashed known_hosts entry, as the system client does', async () => {
    const [address, type, key] = t.hostKeyLine.split(' ');
    const text = `${hashHostName(String(address), randomBytes(20))} ${type} ${key}\n`;
    const mux = new OpenSshMuxExecutor({ ...t.settings, knownHostsFile: knownHostsFile('hashed', text) });
    try {
      const result = await mux.execute(request({ echo: 'hashed' }));
      assert.equal(result.exitCode, 0);
      assert.deepEqual(
        reports(result).map((r) => r.echo),
        ['hashed'],
      );
    } finally {
      await mux.close();
    }
  });

  it('reuses one master connection for 20 sequential calls', async () => {
    const mux = new OpenSshMuxExecutor(t.settings);
    try {
      const parents = new Set<number>();
      for (let index = 0; index < 20; index += 1) {
        const result = await mux.execute(request({ echo: String(index) }));
        assert.equal(result.exitCode, 0, `call ${index}`);
        if (index === 0) assert.equal(sockets(String(await mux.controlDirectory())).length, 1, 'the control socket exists after the first call');
        parents.add(reports(result)[0]?.ppid ?? -1);
      }
      const control = String(await mux.controlDirectory());
      const [socket] = sockets(control);
      assert.ok(socket && /^[0-9a-f]{40}$/.test(socket), `%C names the socket: ${socket}`);
      assert.ok(statSync(join(control, socket)).isSocket());
      assert.equal(parents.size, 1, 'every command ran under one sshd session');
      assert.equal(await otherSessions(), 1);
    } finally {
      await mux.close();
    }
  });

  it('runs 8 parallel calls, 4 at a time, on the master', async () => {
    const mux = new OpenSshMuxExecutor(t.settings);
    const limiter = new HostLimiter(4);
    try {
      const warm = await mux.execute(request({}));
      assert.equal(warm.exitCode, 0);
      const results = await Promise.all(Array.from({ length: 8 }, (_, index) => limiter.run('stable', () => mux.execute(request({ mode: 'sleep', ms: 1_000, echo: String(index) })))));
      for (const [index, result] of results.entries()) {
        assert.equal(result.exitCode, 0, `call ${index}`);
        assert.equal(reports(result).at(-1)?.echo, String(index));
      }
      assert.equal(new Set([warm, ...results].map((result) => reports(result)[0]?.ppid)).size, 1);
    } finally {
      await mux.close();
    }
  });

  it('times out and aborts like the system executor, leaving the master usable', async () => {
    const mux = new OpenSshMuxExecutor(t.settings);
    try {
      const first = await mux.execute(request({}));
      const started = Date.now();
      const timed = await mux.execute(request({ mode: 'sleep', ms: 60_000 }, { timeoutMs: 1_500 }));
      const elapsed = Date.now() - started;
      assert.equal(timed.timedOut, true);
      assert.ok(reports(timed).length >= 1, 'output before the timeout is kept');
      // The bound, plus at most the 3 s SIGTERM grace and some slack for a loaded machine.
      assert.ok(elapsed >= 1_400 && elapsed < 6_000, `took ${elapsed} ms`);

      const controller = new AbortController();
      setTimeout(() => controller.abort(), 800);
      const aborted = await mux.execute(request({ mode: 'sleep', ms: 60_000 }, { signal: controller.signal }));
      assert.equal(aborted.aborted, true);
      assert.equal(aborted.timedOut, false);

      const after = await mux.execute(request({}));
      assert.equal(after.exitCode, 0);
      assert.equal(reports(after)[0]?.ppid, reports(first)[0]?.ppid, 'the same master serves on');
    } finally {
      await mux.close();
    }
  });

  it('recovers from a dropped master connection on the next call', async () => {
    const mux = new OpenSshMuxExecutor(t.settings);
    try {
      const first = await mux.execute(request({}));
      assert.equal(first.exitCode, 0);
      const control = String(await mux.controlDirectory());
      await t.host.exec(['pkill', '-f', 'sshd:.*@notty']);
      // The master notices the closed connection, exits and removes its socket.
      await waitFor('the master to exit', () => sockets(control).length === 0);
      const second = await mux.execute(request({ echo: 'again' }));
      assert.equal(second.exitCode, 0);
      assert.equal(reports(second)[0]?.echo, 'again');
      assert.notEqual(reports(second)[0]?.ppid, reports(first)[0]?.ppid);
      assert.equal(sockets(control).length, 1);
    } finally {
      await mux.close();
    }
  });

  it('close() stops every master and removes the control directory', async () => {
    const mux = new OpenSshMuxExecutor(t.settings);
    const result = await mux.execute(request({}));
    assert.equal(result.exitCode, 0);
    const control = String(await mux.controlDirectory());
    assert.equal(sockets(control).length, 1);
    assert.ok(localSshProcesses(control).length >= 1, 'a master runs');
    await mux.close();
    assert.equal(existsSync(control), false);
    await waitFor('the master process to exit', () => localSshProcesses(control).length === 0);
    await waitFor('the sshd session to end', async () => (await otherSessions()) === 0);
  });

  it('refuses to run when the control directory is no longer private', async () => {
    const mux = new OpenSshMuxExecutor(t.settings);
    try {
      assert.equal((await mux.execute(request({}))).exitCode, 0);
      const control = String(await mux.controlDirectory());
      chmodSync(control, 0o755);
      assert.equal(await checkPrivateDirectory(control), 'has mode 755, not 700');
      const marker = `/tmp/mux-open-${randomUUID()}`;
      const refused = await mux.execute(request({ marker }));
      assert.equal(refused.transportFailed, true);
      assert.equal((await t.host.exec(['test', '-e', marker])).code, 1);
      chmodSync(control, 0o700);
      assert.equal((await mux.execute(request({}))).exitCode, 0);
    } finally {
      await mux.close();
    }
  });

  it('checks a control directory: missing, a file, foreign modes', async () => {
    assert.equal(await checkPrivateDirectory(join(t.directory, 'missing')), 'does not exist');
    const file = join(t.directory, 'file');
    writeFileSync(file, '');
    assert.equal(await checkPrivateDirectory(file), 'is not a directory');
    const open = mkdtempSync(join(t.directory, 'open-'));
    chmodSync(open, 0o770);
    assert.equal(await checkPrivateDirectory(open), 'has mode 770, not 700');
    chmodSync(open, 0o700);
    assert.equal(await checkPrivateDirectory(open), undefined);
  });

  it('creates the control directory under a chosen base, and refuses one too long for a socket path', async () => {
    // Short enough for `<base>/occ-ssh-mux-XXXXXX/<40 hex>.<16 random>` to fit a socket path.
    const base = mkdtempSync(join(tmpdir(), 'b-'));
    const mux = new OpenSshMuxExecutor(t.settings, 'ssh', { baseDirectory: base });
    try {
      assert.equal((await mux.execute(request({}))).exitCode, 0);
      assert.ok(String(await mux.controlDirectory()).startsWith(join(base, 'occ-ssh-mux-')));
    } finally {
      await mux.close();
    }
    assert.deepEqual(readdirSync(base), []);
    rmSync(base, { recursive: true, force: true });
    const deep = join(t.directory, 'd'.repeat(60));
    spawnSync('mkdir', ['-p', deep]);
    const tooLong = new OpenSshMuxExecutor(t.settings, 'ssh', { baseDirectory: deep });
    const refused = await tooLong.execute(request({}));
    assert.equal(refused.transportFailed, true);
    await tooLong.close();
    assert.deepEqual(readdirSync(deep), []);
  });
});
