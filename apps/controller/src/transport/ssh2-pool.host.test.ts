// Ssh2PoolExecutor against a real systemd + OpenSSH test host: strictness, reuse, limits, cancellation, recovery.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, copyFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hashHostName, parseKnownHosts } from './known-hosts.js';
import type { SshClientSettings } from '@occ-ssh/ssh-client';
import { Ssh2PoolExecutor, type Ssh2PoolEvent, type Ssh2PoolOptions } from './ssh2-pool.js';
import { MAX_STDOUT_BYTES } from './system-ssh.js';
import { silentLoopbackListener } from '@occ-ssh/test-support';
import { otherEd25519Key, reports, transportRequests, useTransportHost, waitFor } from '../../test/transport-host.js';

describe('Ssh2PoolExecutor on a real host', { timeout: 240_000 }, () => {
  const t = useTransportHost('ssh2pool', 'occ-ssh2-test-');
  const { request, knownHostsFile, otherSessions } = transportRequests(t);
  const silent = silentLoopbackListener();

  before(() => {
    assert.ok(parseKnownHosts(t.hostKeyLine).length === 1, 'the harness writes one plain known_hosts line');
  });
  after(() => silent.close());

  function executor(overrides: Partial<SshClientSettings> = {}, options: Partial<Ssh2PoolOptions> = {}) {
    const events: Ssh2PoolEvent[] = [];
    const pool = new Ssh2PoolExecutor({ ...t.settings, ...overrides }, { maxChannelsPerHost: 4, onEvent: (event) => events.push(event), ...options });
    return { pool, events };
  }

  async function markerExists(marker: string): Promise<boolean> {
    return (await t.host.exec(['test', '-e', marker])).code === 0;
  }

  it('runs `<node> - <base64>` with the helper on stdin and returns its stdout', async () => {
    const { pool } = executor();
    try {
      const result = await pool.execute(request({ mode: 'echo', echo: 'hello from the controller' }));
      assert.equal(result.exitCode, 0);
      assert.equal(result.transportFailed, false);
      assert.equal(result.timedOut, false);
      assert.equal(result.aborted, false);
      assert.equal(result.stderrBytes, 0);
      assert.deepEqual(
        reports(result).map((r) => r.echo),
        ['hello from the controller'],
      );
    } finally {
      await pool.close();
    }
  });

  it('reports exit codes and remote signals, and counts stderr without keeping it', async () => {
    const { pool } = executor();
    try {
      const exited = await pool.execute(request({ mode: 'exit', code: 3, stderr: 10 }));
      assert.equal(exited.exitCode, 3);
      assert.equal(exited.signal, null);
      assert.equal(exited.transportFailed, false);
      assert.equal(exited.stdout, 'partial\n');
      assert.equal(exited.stderrBytes, 'secret-stderr-'.length * 10);
      assert.ok(!JSON.stringify(exited).includes('secret-stderr'));
      const killed = await pool.execute(request({ mode: 'kill' }));
      assert.equal(killed.exitCode, null);
      assert.equal(killed.signal, 'SIGKILL');
      assert.equal(killed.transportFailed, false);
    } finally {
      await pool.close();
    }
  });

  it('bounds captured stdout at MAX_STDOUT_BYTES', async () => {
    const { pool } = executor();
    try {
      const result = await pool.execute(request({ mode: 'flood', chunks: 80 }));
      assert.equal(result.exitCode, 0);
      assert.equal(result.stdoutTruncated, true);
      assert.ok(Buffer.byteLength(result.stdout) <= MAX_STDOUT_BYTES);
      assert.ok(Buffer.byteLength(result.stdout) > MAX_STDOUT_BYTES - 64 * 1024);
    } finally {
      await pool.close();
    }
  });

  it('refuses a host whose key differs from known_hosts: transportFailed and nothing ran', async () => {
    const [address, type] = t.hostKeyLine.split(' ');
    const wrong = knownHostsFile('wrong', `${address} ${type} ${otherEd25519Key()}\n`);
    const { pool, events } = executor({ knownHostsFile: wrong });
    const marker = `/tmp/ssh2-wrong-${randomUUID()}`;
    try {
      const result = await pool.execute(request({ mode: 'echo', marker }));
      assert.equal(result.transportFailed, true);
      assert.equal(result.exitCode, null);
      assert.equal(result.stdout, '');
      assert.ok(
        events.some((event) => event.type === 'failed' && event.reason === 'host-key'),
        JSON.stringify(events),
      );
      assert.equal(await markerExists(marker), false, 'the command must not have run');
    } finally {
      await pool.close();
    }
  });

  it('refuses a host known_hosts does not name, and a revoked key', async () => {
    const [, type, key] = t.hostKeyLine.split(' ');
    const cases = {
      other: `203.0.113.77 ${type} ${key}\n`,
      port: `[${t.host.address}]:2222 ${type} ${key}\n`,
      revoked: `${t.hostKeyLine}\n@revoked * ${type} ${key}\n`,
      ca: `@cert-authority * ${type} ${key}\n`,
      empty: '',
    };
    for (const [name, text] of Object.entries(cases)) {
      const { pool, events } = executor({ knownHostsFile: knownHostsFile(`refuse-${name}`, text) });
      const marker = `/tmp/ssh2-${name}-${randomUUID()}`;
      try {
        const result = await pool.execute(request({ mode: 'echo', marker }));
        assert.equal(result.transportFailed, true, name);
        assert.ok(
          events.some((event) => event.type === 'failed' && event.reason === 'host-key'),
          `${name}: ${JSON.stringify(events)}`,
        );
        assert.equal(await markerExists(marker), false, name);
      } finally {
        await pool.close();
      }
    }
  });

  it('accepts a hashed known_hosts entry for the right host, ignoring a decoy for another port', async () => {
    const [address, type, key] = t.hostKeyLine.split(' ');
    const hashed = [`${hashHostName(`[${address}]:2222`, randomBytes(20))} ${type} ${otherEd25519Key()}`, `${hashHostName(String(address), randomBytes(20))} ${type} ${key}`].join('\n');
    assert.ok(!hashed.includes(String(address)));
    const { pool } = executor({ knownHostsFile: knownHostsFile('hashed', `${hashed}\n`) });
    try {
      const result = await pool.execute(request({ mode: 'echo', echo: 'hashed' }));
      assert.equal(result.transportFailed, false);
      assert.deepEqual(
        reports(result).map((r) => r.echo),
        ['hashed'],
      );
    } finally {
      await pool.close();
    }
  });

  it('refuses an identity file readable by group or others before connecting', async () => {
    const loose = join(t.directory, 'id_loose');
    copyFileSync(t.host.identityFile, loose);
    chmodSync(loose, 0o640);
    const { pool, events } = executor({ identityFile: loose });
    try {
      const result = await pool.execute(request({ mode: 'echo' }));
      assert.equal(result.transportFailed, true);
      assert.deepEqual(
        events.filter((event) => event.type === 'failed'),
        [{ type: 'failed', key: `${t.host.address}:22:root`, reason: 'identity-file' }],
      );
      assert.ok(!events.some((event) => event.type === 'ready'));
    } finally {
      await pool.close();
    }
  });

  it('follows links to a private identity (a Kubernetes Secret mount), refuses a loose one behind a link and missing files', async () => {
    const link = join(t.directory, 'id_link');
    symlinkSync(t.host.identityFile, link);
    const followed = executor({ identityFile: link });
    try {
      const result = await followed.pool.execute(request({ mode: 'echo', echo: 'linked' }));
      assert.equal(result.transportFailed, false);
      assert.deepEqual(
        reports(result).map((r) => r.echo),
        ['linked'],
      );
    } finally {
      await followed.pool.close();
    }
    const loose = join(t.directory, 'id_loose_target');
    copyFileSync(t.host.identityFile, loose);
    chmodSync(loose, 0o640);
    const looseLink = join(t.directory, 'id_loose_link');
    symlinkSync(loose, looseLink);
    const cases: [Partial<SshClientSettings>, string][] = [
      [{ identityFile: looseLink }, 'identity-file'],
      [{ identityFile: join(t.directory, 'no-such-key') }, 'identity-file'],
      [{ knownHostsFile: join(t.directory, 'no-such-known-hosts') }, 'known-hosts-file'],
      [{ knownHostsFile: t.directory }, 'known-hosts-file'],
    ];
    for (const [overrides, reason] of cases) {
      const { pool, events } = executor(overrides);
      try {
        const result = await pool.execute(request({ mode: 'echo' }));
        assert.equal(result.transportFailed, true);
        assert.deepEqual(
          events.filter((event) => event.type === 'failed').map((event) => 'reason' in event && event.reason),
          [reason],
        );
      } finally {
        await pool.close();
      }
    }
  });

  it('refuses a passphrase-protected identity: there is no prompt, as with BatchMode=yes', async () => {
    const locked = join(t.directory, 'id_locked');
    const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'a passphrase', '-C', 'locked', '-f', locked]);
    assert.equal(made.status, 0, 'ssh-keygen');
    const { pool, events } = executor({ identityFile: locked });
    try {
      const result = await pool.execute(request({ mode: 'echo' }));
      assert.equal(result.transportFailed, true);
      assert.ok(
        events.some((event) => event.type === 'failed' && event.reason === 'identity-file'),
        JSON.stringify(events),
      );
    } finally {
      await pool.close();
    }
  });

  it('refuses a key the host does not authorize', async () => {
    const stranger = join(t.directory, 'id_stranger');
    const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'stranger', '-f', stranger]);
    assert.equal(made.status, 0, 'ssh-keygen');
    const { pool, events } = executor({ identityFile: stranger });
    try {
      const result = await pool.execute(request({ mode: 'echo' }));
      assert.equal(result.transportFailed, true);
      assert.ok(
        events.some((event) => event.type === 'failed' && event.reason === 'authentication'),
        JSON.stringify(events),
      );
    } finally {
      await pool.close();
    }
  });

  it('reuses one connection for 20 sequential calls', async () => {
    const { pool } = executor();
    try {
      const parents = new Set<number>();
      for (let index = 0; index < 20; index += 1) {
        const result = await pool.execute(request({ mode: 'echo', echo: String(index) }));
        assert.equal(result.exitCode, 0, `call ${index}`);
        const [report] = reports(result);
        assert.equal(report?.echo, String(index));
        parents.add(report?.ppid ?? -1);
      }
      assert.equal(pool.connectionsOpened, 1);
      assert.equal(pool.openConnections, 1);
      // Every command ran under the same sshd session process: one connection on the host too.
      assert.equal(parents.size, 1);
      assert.equal(await otherSessions(), 1);
    } finally {
      await pool.close();
    }
  });

  it('runs 8 parallel calls through at most 4 channels of one connection', async () => {
    const { pool } = executor({}, { maxChannelsPerHost: 4 });
    try {
      const started = Date.now();
      const results = await Promise.all(Array.from({ length: 8 }, (_, index) => pool.execute(request({ mode: 'sleep', ms: 1_000, echo: String(index) }))));
      const elapsed = Date.now() - started;
      for (const [index, result] of results.entries()) {
        assert.equal(result.exitCode, 0, `call ${index}`);
        assert.equal(reports(result).at(-1)?.echo, String(index));
      }
      assert.equal(pool.connectionsOpened, 1);
      assert.equal(new Set(results.map((result) => reports(result)[0]?.ppid)).size, 1);
      // Two waves of four: eight one-second calls cannot finish in much under two seconds.
      assert.ok(elapsed >= 2_000, `took ${elapsed} ms`);
    } finally {
      await pool.close();
    }
  });

  it('times out by closing the channel, without disturbing another call on the same connection', async () => {
    const { pool } = executor();
    try {
      const long = pool.execute(request({ mode: 'sleep', ms: 3_000, echo: 'long' }));
      const started = Date.now();
      const result = await pool.execute(request({ mode: 'sleep', ms: 60_000 }, { timeoutMs: 1_500 }));
      const elapsed = Date.now() - started;
      assert.equal(result.timedOut, true);
      assert.equal(result.aborted, false);
      assert.equal(result.transportFailed, false);
      // The bound, plus at most the 3 s close grace and some slack for a loaded machine.
      assert.ok(elapsed >= 1_400 && elapsed < 6_000, `took ${elapsed} ms`);
      const survivor = await long;
      assert.equal(survivor.exitCode, 0);
      assert.equal(reports(survivor).at(-1)?.echo, 'long');
      const next = await pool.execute(request({ mode: 'echo' }));
      assert.equal(next.exitCode, 0);
      assert.equal(pool.connectionsOpened, 1);
    } finally {
      await pool.close();
    }
  });

  it('cancels on abort, and at once on an already-aborted signal', async () => {
    const { pool } = executor();
    try {
      const controller = new AbortController();
      const running = `/tmp/ssh2-abort-${randomUUID()}`;
      const pending = pool.execute(request({ mode: 'sleep', ms: 60_000, marker: running }, { signal: controller.signal }));
      await waitFor('the command to start', () => markerExists(running));
      const abortedAt = Date.now();
      controller.abort();
      const result = await pending;
      assert.equal(result.aborted, true);
      assert.equal(result.timedOut, false);
      assert.equal(result.transportFailed, false);
      // The channel close is confirmed at once, or the call returns after the 3 s grace at the latest.
      assert.ok(Date.now() - abortedAt < 4_500, `took ${Date.now() - abortedAt} ms after the abort`);
      assert.ok(reports(result).length >= 1, 'output before the abort is kept');

      const early = new AbortController();
      early.abort();
      const marker = `/tmp/ssh2-aborted-${randomUUID()}`;
      const none = await pool.execute(request({ mode: 'echo', marker }, { signal: early.signal }));
      assert.equal(none.aborted, true);
      assert.notEqual(none.exitCode, 0);
      assert.equal(await markerExists(marker), false);
    } finally {
      await pool.close();
    }
  });

  it('times out while connecting when the host never answers', async () => {
    // A loopback listener that accepts and never speaks: the handshake can only time out.
    const { pool } = executor({ connectTimeoutSeconds: 1 });
    try {
      const started = Date.now();
      const result = await pool.execute(request({ mode: 'echo' }, { host: { ...t.target, address: '127.0.0.1', port: await silent.port() } }));
      assert.equal(result.transportFailed, true);
      assert.ok(Date.now() - started < 5_000);
    } finally {
      await pool.close();
    }
  });

  it('close() abandons a connection still being established', async () => {
    const { pool } = executor({ connectTimeoutSeconds: 30 });
    const started = Date.now();
    const pending = pool.execute(request({ mode: 'echo' }, { host: { ...t.target, address: '127.0.0.1', port: await silent.port() } }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await pool.close();
    const result = await pending;
    assert.equal(result.transportFailed, true);
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    assert.equal(pool.openConnections, 0);
  });

  it('evicts a dropped connection and reconnects on the next call', async () => {
    const { pool } = executor();
    try {
      const first = await pool.execute(request({ mode: 'echo' }));
      assert.equal(first.exitCode, 0);
      // Kills every session on the host, this check's own included.
      await t.host.exec(['pkill', '-f', 'sshd:.*@notty']);
      const second = await pool.execute(request({ mode: 'echo', echo: 'again' }));
      assert.equal(second.exitCode, 0);
      assert.equal(reports(second)[0]?.echo, 'again');
      assert.equal(pool.connectionsOpened, 2);
      assert.notEqual(reports(second)[0]?.ppid, reports(first)[0]?.ppid);
    } finally {
      await pool.close();
    }
  });

  it('reports a connection lost under a running command as a transport failure', async () => {
    const { pool } = executor();
    try {
      const marker = `/tmp/ssh2-running-${randomUUID()}`;
      const running = pool.execute(request({ mode: 'sleep', ms: 10_000, marker }));
      await waitFor('the command to start', () => markerExists(marker));
      await t.host.exec(['pkill', '-f', 'sshd:.*@notty']);
      const result = await running;
      assert.equal(result.transportFailed, true);
      assert.equal(result.timedOut, false);
      assert.equal(result.exitCode, null);
      const next = await pool.execute(request({ mode: 'echo' }));
      assert.equal(next.exitCode, 0);
      assert.equal(pool.connectionsOpened, 2);
    } finally {
      await pool.close();
    }
  });

  it('close() ends every connection, on both ends', async () => {
    const { pool, events } = executor();
    const result = await pool.execute(request({ mode: 'echo' }));
    assert.equal(result.exitCode, 0);
    assert.equal(await otherSessions(), 1);
    await pool.close();
    assert.equal(pool.openConnections, 0);
    assert.ok(events.some((event) => event.type === 'closed'));
    await waitFor('the sshd session to end', async () => (await otherSessions()) === 0);
  });
});
