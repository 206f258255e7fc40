// The session's deadline timer and the lock wait it ends (local processes: the lock is a real flock).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { acquireLock } from '../lock/lock.js';
import { Session } from './session.js';

const aborted = (signal: AbortSignal) => new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
const isCode = (code: string) => (error: unknown) => error instanceof ComputeError && error.code === code;

describe('Session', () => {
  it('ends at its deadline by a timer, without waiting for the next checkpoint', async () => {
    const session = new Session(new PassThrough(), 300);
    session.start();
    const started = Date.now();
    const reason = await aborted(session.signal);
    session.stop();
    assert.ok(isCode('timeout')(reason), String(reason));
    assert.ok(Date.now() - started < 1000);
  });

  it('aborts its signal with a cancelled error as soon as a heartbeat write fails', async () => {
    const session = new Session(new Writable({ write: (_chunk, _encoding, done) => done(new Error('EPIPE')) }));
    session.heartbeat();
    assert.ok(isCode('cancelled')(await aborted(session.signal)));
    assert.throws(() => session.checkpoint(), isCode('cancelled'));
  });

  // A child process with a real pipe as stdout, as the helper has under sshd: its checkpoint is
  // told to run once the parent has (or has not) closed the pipe's read end.
  async function checkpointInChild(closeFirst: boolean): Promise<{ verdict: string; stdout: string }> {
    const session = fileURLToPath(new URL('./session.ts', import.meta.url));
    const code =
      `const { Session } = await import(${JSON.stringify(session)});` +
      'const s = new Session(process.stdout, 60000);' +
      "process.stdin.once('data', () => { let v = 'passed'; try { s.checkpoint(); } catch (e) { v = e.code; }" +
      " require('node:fs').writeSync(2, v); process.exit(0); });";
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=commonjs', '-e', `(async () => { ${code} })()`], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    if (closeFirst) child.stdout.destroy();
    child.stdin.write('go');
    await new Promise((resolve) => child.on('exit', resolve));
    return { verdict: stderr.trim().split('\n').at(-1) ?? '', stdout };
  }

  it('sees a session whose reader is gone at the checkpoint itself, before any change', async () => {
    assert.equal((await checkpointInChild(true)).verdict, 'cancelled');
  });

  it('passes a checkpoint while the reader is there, and reports it as a heartbeat line', async () => {
    const { verdict, stdout } = await checkpointInChild(false);
    assert.equal(verdict, 'passed');
    assert.match(stdout, /^\{"type":"heartbeat","seq":0\}$/m);
  });
});

describe('acquireLock', () => {
  it('stops waiting for a held lock the moment the session ends, and leaves no waiting flock behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'occ-lock-'));
    const lockPath = join(dir, '.compute-lock');
    mkdirSync(join(dir, 'accounts'), { mode: 0o711 });
    const holder = spawn('flock', [lockPath, 'sleep', '30'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const session = new Session(new PassThrough(), 400);
      session.start();
      const started = Date.now();
      await assert.rejects(acquireLock(lockPath, session.signal), isCode('timeout'));
      session.stop();
      // Far below the holder's 30 s, with room for a loaded machine: it did not wait for the lock.
      assert.ok(Date.now() - started < 10_000, `waited ${Date.now() - started} ms for a 30 s lock`);
      // The helper's flock opens the verified descriptor as /proc/self/fd/3: look for this process's children.
      const waiting = spawn('pgrep', ['-P', String(process.pid), '-f', '^flock --exclusive']);
      assert.equal(await new Promise((resolve) => waiting.on('exit', resolve)), 1, 'the flock child was killed');
    } finally {
      holder.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
