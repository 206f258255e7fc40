// The lock file and its flock on local files (real flock processes; run as root, as the helper is).
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import { acquireLock } from './lock.js';
import { openLockFile } from './lock-file.js';
import { parseLocks, rootLockers, uidsOf } from './lock-holders.js';

const isCode = (code: string) => (error: unknown) => error instanceof ComputeError && error.code === code;
const stat = (path: string) => fs.lstatSync(path, { bigint: true });
const describeFile = (path: string) => {
  const s = fs.lstatSync(path);
  return `${s.uid}:${s.gid} ${(s.mode & 0o7777).toString(8)} ${s.isFile() ? 'file' : 'other'}`;
};
const flockWaiters = () =>
  spawnSync('pgrep', ['-P', String(process.pid), '-f', '^flock --exclusive'])
    .stdout.toString()
    .trim();

const LOCKS = `1: FLOCK  ADVISORY  WRITE 30803 fe:00:2146325 0 EOF
1: -> FLOCK  ADVISORY  WRITE 30900 fe:00:2146325 0 EOF
2: OFDLCK ADVISORY  WRITE -1 fe:00:1663029 0 EOF
3: POSIX  ADVISORY  WRITE 812 00:19:2146325 0 EOF
4: FLOCK  ADVISORY  READ  1207 00:2f:98765 0 EOF
`;

describe('parseLocks and uidsOf', () => {
  it('reads flock holders and waiters with pid and inode, skipping POSIX and OFD locks', () => {
    assert.deepEqual(parseLocks(LOCKS), [
      { pid: 30803, inode: 2146325n, waiting: false },
      { pid: 30900, inode: 2146325n, waiting: true },
      { pid: 1207, inode: 98765n, waiting: false },
    ]);
  });

  it('reads the real and effective uid of a status file', () => {
    assert.deepEqual(uidsOf('Name:\tflock\nUid:\t1001\t0\t0\t0\nGid:\t0\t0\t0\t0\n'), [1001, 0]);
    assert.equal(uidsOf(''), null);
  });
});

describe('openLockFile and acquireLock', () => {
  let dir: string;
  let lock: string;
  const holders: ChildProcess[] = [];
  const hold = async (...args: string[]) => {
    const child = spawn('flock', [...args, lock, 'sleep', '30'], { stdio: 'ignore' });
    holders.push(child);
    for (let i = 0; i < 50 && !parseLocks(fs.readFileSync('/proc/locks', 'utf8')).some((e) => e.inode === stat(lock).ino); i += 1) await sleep(20);
    return child;
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(join(tmpdir(), 'occ-lock-'));
    fs.chmodSync(dir, 0o711);
    fs.mkdirSync(join(dir, 'accounts'), { mode: 0o711 });
    lock = join(dir, '.compute-lock');
  });
  afterEach(() => {
    for (const child of holders.splice(0)) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates a missing lock file root:root 0600 and opens that very file', async () => {
    const file = await openLockFile(lock, Date.now() + 5000);
    try {
      assert.equal(describeFile(lock), '0:0 600 file');
      assert.equal(fs.fstatSync(file.fd, { bigint: true }).ino, stat(lock).ino);
    } finally {
      fs.closeSync(file.fd);
    }
  });

  it('replaces a root 0644 file with a new inode, even while another process holds it shared', async () => {
    fs.writeFileSync(lock, '', { mode: 0o644 });
    const legacy = stat(lock).ino;
    // A tenant: not root, so never waited for.
    const tenant = spawn('flock', ['--shared', lock, 'sleep', '30'], { stdio: 'ignore', uid: 65534, gid: 65534 });
    holders.push(tenant);
    for (let i = 0; i < 50 && parseLocks(fs.readFileSync('/proc/locks', 'utf8')).every((e) => e.inode !== legacy); i += 1) await sleep(20);
    assert.deepEqual(rootLockers(stat(lock)), [], 'a process as nobody is no root locker');
    const held = await acquireLock(lock);
    try {
      assert.notEqual(stat(lock).ino, legacy);
      assert.equal(describeFile(lock), '0:0 600 file');
      assert.ok(held.waitedMs < 5000, `waited ${held.waitedMs} ms`);
    } finally {
      await held.release();
    }
  });

  it('waits for a root holder of the old file before replacing it, and a closed session ends that wait at once', async () => {
    fs.writeFileSync(lock, '', { mode: 0o644 });
    const holder = await hold('-x');
    assert.deepEqual(rootLockers(stat(lock)), [holder.pid]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new ComputeError('cancelled', 'the session closed')), 300);
    const started = Date.now();
    await assert.rejects(acquireLock(lock, controller.signal), isCode('cancelled'));
    assert.ok(Date.now() - started < 5000);
    assert.equal(flockWaiters(), '', 'no flock left waiting');
    assert.equal(describeFile(lock), '0:0 644 file', 'not replaced while root held it');
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    const held = await acquireLock(lock);
    assert.equal(describeFile(lock), '0:0 600 file');
    await held.release();
  });

  it('serializes two acquirers on the verified file', async () => {
    const first = await acquireLock(lock);
    let taken = false;
    const second = acquireLock(lock).then((held) => {
      taken = true;
      return held;
    });
    await sleep(500);
    assert.equal(taken, false, 'the second waits while the first holds it');
    await first.release();
    const held = await second;
    assert.ok(held.waitedMs >= 400, `waited ${held.waitedMs} ms`);
    await held.release();
  });

  it('refuses a symlink, a directory and a second hard link (a fifo: on the host) as host-requirement naming the path, changing nothing', async () => {
    const target = join(dir, 'target');
    const plants: Record<string, () => void> = {
      symlink: () => fs.symlinkSync(target, lock),
      directory: () => fs.mkdirSync(lock),
      'hard link': () => {
        fs.writeFileSync(target, '', { mode: 0o600 });
        fs.linkSync(target, lock);
      },
    };
    for (const [kind, plant] of Object.entries(plants)) {
      fs.rmSync(lock, { recursive: true, force: true });
      fs.rmSync(target, { force: true });
      plant();
      const before = fs.readdirSync(dir).sort();
      await assert.rejects(openLockFile(lock, Date.now() + 5000), (error: unknown) => isCode('host-requirement')(error) && (error as ComputeError).details.path === lock, kind);
      assert.deepEqual(fs.readdirSync(dir).sort(), before, kind);
      assert.equal(fs.existsSync(target), kind === 'hard link', `${kind}: no target created`);
    }
  });
});
