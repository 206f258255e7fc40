// SystemSshCommandExecutor against a real child process: a fake `ssh` script written at test time.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HOST } from '../../test/fakes.js';
import type { ExecuteRequest, ExecuteResult } from './executor.js';
import type { SshClientSettings } from '@occ-ssh/ssh-client';
import { MAX_STDOUT_BYTES, SystemSshCommandExecutor } from './system-ssh.js';

const SETTINGS: SshClientSettings = { identityFile: '/etc/openclaw/ssh/id_ed25519', knownHostsFile: '/etc/openclaw/ssh/known_hosts', connectTimeoutSeconds: 10 };
const STDERR_SECRET = 'sk-stderr-secret-456';
const HEARTBEAT = '{"type":"heartbeat","seq":0}\n';
const RESULT = '{"type":"result","ok":true}\n';

/**
 * The fake client. Its environment is the executor's (PATH, HOME, LANG only), so it takes its
 * behaviour from the remote command's last word, `<mode>:<id>`, and records its argv, stdin and
 * environment names to `record-<id>.json` once stdin reaches EOF.
 */
function fakeSsh(directory: string): string {
  return `#!/usr/bin/env node
'use strict';
const fs = require('fs');
const args = process.argv.slice(2);
const [mode, id] = String(args[args.length - 1]).split(' ').pop().split(':');
if (mode === 'ignore-term') process.on('SIGTERM', () => fs.writeFileSync(${JSON.stringify(directory)} + '/term-' + id, 'TERM'));
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  const stdin = Buffer.concat(chunks);
  fs.writeFileSync(${JSON.stringify(directory)} + '/record-' + id + '.json', JSON.stringify({ argv: args, stdin: stdin.toString('base64'), env: Object.keys(process.env) }));
  behave();
});
function behave() {
  switch (mode) {
    case 'result':
      process.stdout.write(${JSON.stringify(HEARTBEAT + RESULT)});
      return;
    case 'sleep':
    case 'ignore-term':
      setInterval(() => undefined, 1000);
      return;
    case 'exit255':
      process.stderr.write('root@203.0.113.10: Permission denied (publickey). ${STDERR_SECRET}\\n', () => process.exit(255));
      return;
    case 'stderr':
      process.stderr.write('${STDERR_SECRET}\\n'.repeat(100));
      process.stdout.write('partial\\n', () => { process.exitCode = 3; });
      return;
    case 'flood': {
      const chunk = Buffer.alloc(64 * 1024, 'y');
      let left = 100;
      const write = () => {
        while (left > 0) {
          left -= 1;
          if (!process.stdout.write(chunk)) return process.stdout.once('drain', write);
        }
      };
      write();
      return;
    }
    default:
      process.exitCode = 9;
  }
}
`;
}

interface Record_ {
  argv: string[];
  stdin: string;
  env: string[];
}

describe('SystemSshCommandExecutor', () => {
  let directory = '';
  let sshPath = '';
  let executor: SystemSshCommandExecutor;
  let counter = 0;

  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'occ-ssh-fake-client-'));
    sshPath = join(directory, 'fake-ssh'); // not named ssh: it dials nothing, and the network guard checks real ssh calls
    writeFileSync(sshPath, fakeSsh(directory));
    chmodSync(sshPath, 0o755);
    executor = new SystemSshCommandExecutor(SETTINGS, sshPath);
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  function request(mode: string, overrides: Partial<ExecuteRequest> = {}, stdin = Buffer.from('helper')): { request: ExecuteRequest; id: string } {
    counter += 1;
    const id = `c${counter}`;
    return { id, request: { host: HOST, call: { argv: ['/usr/bin/node', '-', `${mode}:${id}`], stdin }, timeoutMs: 10_000, ...overrides } };
  }

  function record(id: string): Record_ {
    return JSON.parse(readFileSync(join(directory, `record-${id}.json`), 'utf8')) as Record_;
  }

  function assertNoStderr(result: ExecuteResult): void {
    assert.ok(!JSON.stringify(result).includes(STDERR_SECRET), 'stderr content reached the result');
  }

  it('passes the argv verbatim, without a shell, and captures stdout', async () => {
    const { request: req, id } = request('result');
    // Shell syntax in the remote argv must arrive as literal, quoted text: no local shell runs it.
    const marker = join(directory, 'pwned');
    const call = { argv: ['/usr/bin/node', '-', `$(touch ${marker})`, ';', 'touch', marker, `result:${id}`], stdin: req.call.stdin };
    const result = await executor.execute({ ...req, call });
    assert.deepEqual(record(id).argv, executor.argv({ host: HOST, call }));
    assert.equal(record(id).argv.at(-1), `/usr/bin/node - '$(touch ${marker})' ';' touch ${marker} result:${id}`);
    assert.equal(record(id).argv[0], '-F');
    assert.equal(existsSync(marker), false);
    assert.deepEqual(result, {
      exitCode: 0,
      signal: null,
      stdout: HEARTBEAT + RESULT,
      stderrBytes: 0,
      stdoutTruncated: false,
      timedOut: false,
      aborted: false,
      transportFailed: false,
    });
  });

  it('writes the artifact bytes to stdin and closes it', async () => {
    const helper = randomBytes(300 * 1024); // larger than a pipe buffer
    const { request: req, id } = request('result', {}, helper);
    const result = await executor.execute(req);
    assert.equal(result.exitCode, 0);
    // The record is written on stdin's 'end': it exists only because EOF arrived.
    assert.ok(Buffer.from(record(id).stdin, 'base64').equals(helper));
  });

  it('gives the client no inherited environment beyond PATH, HOME and LANG', async () => {
    const saved = process.env.SSH_AUTH_SOCK;
    process.env.SSH_AUTH_SOCK = join(directory, 'agent.sock');
    try {
      const { request: req, id } = request('result');
      await executor.execute(req);
      assert.deepEqual(
        record(id).env.filter((name) => !['PATH', 'HOME', 'LANG'].includes(name)),
        [],
      );
    } finally {
      if (saved === undefined) delete process.env.SSH_AUTH_SOCK;
      else process.env.SSH_AUTH_SOCK = saved;
    }
  });

  it('reports exit 255 as a transport failure with its cause, and stderr only as a byte count', async () => {
    const { request: req } = request('exit255');
    const result = await executor.execute(req);
    assert.equal(result.exitCode, 255);
    assert.equal(result.transportFailed, true);
    assert.equal(result.transportCause, 'authentication');
    assert.equal(result.stderrBytes, Buffer.byteLength(`root@203.0.113.10: Permission denied (publickey). ${STDERR_SECRET}\n`));
    assertNoStderr(result);
  });

  it('never puts stderr content in the result', async () => {
    const { request: req } = request('stderr');
    const result = await executor.execute(req);
    assert.equal(result.exitCode, 3);
    assert.equal(result.transportFailed, false);
    assert.equal(result.stdout, 'partial\n');
    assert.equal(result.stderrBytes, Buffer.byteLength(`${STDERR_SECRET}\n`) * 100);
    assertNoStderr(result);
  });

  it('bounds captured stdout at MAX_STDOUT_BYTES and reports the truncation', async () => {
    const { request: req } = request('flood');
    const result = await executor.execute(req);
    assert.equal(result.stdoutTruncated, true);
    assert.ok(Buffer.byteLength(result.stdout) <= MAX_STDOUT_BYTES, `${Buffer.byteLength(result.stdout)} bytes captured`);
    assert.ok(Buffer.byteLength(result.stdout) > 0);
  });

  it('terminates a client that outlives its timeout with SIGTERM', async () => {
    const { request: req } = request('sleep', { timeoutMs: 700 });
    const started = Date.now();
    const result = await executor.execute(req);
    assert.equal(result.timedOut, true);
    assert.equal(result.aborted, false);
    assert.equal(result.signal, 'SIGTERM');
    assert.equal(result.exitCode, null);
    assert.equal(result.transportFailed, false);
    assert.ok(Date.now() - started < 2_900, 'a client that obeys SIGTERM is not left for the kill grace');
  });

  it('kills a client that ignores SIGTERM with SIGKILL after the grace period', async () => {
    // The timeout leaves the fake client (a Node process) time to install its handler even on a
    // loaded machine running three Node lines' suites at once; it started late at 1.5 s.
    const { request: req, id } = request('ignore-term', { timeoutMs: 6_000 });
    const started = Date.now();
    const result = await executor.execute(req);
    const elapsed = Date.now() - started;
    assert.equal(result.timedOut, true);
    assert.equal(result.signal, 'SIGKILL');
    assert.equal(readFileSync(join(directory, `term-${id}`), 'utf8'), 'TERM', 'SIGTERM came first');
    assert.ok(elapsed >= 9_000 && elapsed < 20_000, `took ${elapsed} ms`);
  });

  it('cancels on abort', async () => {
    const controller = new AbortController();
    const { request: req } = request('sleep', { signal: controller.signal });
    setTimeout(() => controller.abort(), 400);
    const started = Date.now();
    const result = await executor.execute(req);
    assert.equal(result.aborted, true);
    assert.equal(result.timedOut, false);
    assert.equal(result.signal, 'SIGTERM');
    assert.ok(Date.now() - started < 5_000);
  });

  it('cancels at once on an already-aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    const { request: req } = request('sleep', { signal: controller.signal });
    const result = await executor.execute(req);
    assert.equal(result.aborted, true);
    assert.notEqual(result.exitCode, 0);
  });

  it('reports a client that cannot be started as a transport failure', async () => {
    const missing = new SystemSshCommandExecutor(SETTINGS, join(directory, 'no-such-ssh'));
    const { request: req } = request('result');
    const result = await missing.execute(req);
    assert.equal(result.transportFailed, true);
    assert.equal(result.stdout, '');
  });
});
