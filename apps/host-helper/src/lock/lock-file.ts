// The host lock file itself: created, verified, opened or replaced by the helper, never by flock(1) by path.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { rootLayout } from '@occ-ssh/markers';
import { ComputeError } from '@occ-ssh/protocol';
import { TEMP_MARK, parentOf, sweepTemps, syncDir } from '../fs/atomic-write.js';
import { beforeChange } from '../run/change-guard.js';
import { holdFlock } from './flock-child.js';
import { rootLockers } from './lock-holders.js';

const { O_CREAT, O_EXCL, O_WRONLY, O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = fs.constants;
/** How long acquiring the host lock may take in all: the replacement of an old file, then the flock. */
export const LOCK_WAIT_MS = 30_000;
const OPEN_ATTEMPTS = 5;
const HOLDER_POLL_MS = 100;

/** A verified descriptor on the lock file: root:root 0600, regular, one link, the file the path names. */
export interface LockFile {
  fd: number;
  dev: bigint;
  ino: bigint;
}

export function lockTimeout(path: string): ComputeError {
  return new ComputeError('lock-timeout', `${path} is still held after ${LOCK_WAIT_MS / 1000} s`, { path });
}

function lstatOrNull(path: string): fs.BigIntStats | null {
  try {
    return fs.lstatSync(path, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function kindOf(stat: fs.BigIntStats): string {
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a fifo';
  if (stat.isSocket()) return 'a socket';
  return 'a device';
}

/**
 * Security: a link could point the lock anywhere, a directory or fifo is not ours to replace, and a
 * second hard link may be a name another account controls. None of them is repaired.
 */
function refusal(path: string, stat: fs.BigIntStats): ComputeError | null {
  if (!stat.isFile()) return new ComputeError('host-requirement', `${path} is ${kindOf(stat)}, not the host lock file; remove it`, { path });
  if (stat.nlink !== 1n) return new ComputeError('host-requirement', `${path} has ${stat.nlink} hard links; the host lock file must have one`, { path });
  return null;
}

function isPrivate(stat: fs.BigIntStats): boolean {
  return stat.uid === 0n && stat.gid === 0n && (stat.mode & 0o7777n) === 0o600n;
}

/** A new empty root:root 0600 file, durable with its directory entry; false if one appeared first. */
function createPrivate(path: string): boolean {
  let fd: number;
  beforeChange();
  try {
    fd = fs.openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.fchownSync(fd, 0, 0);
    fs.fchmodSync(fd, 0o600);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  syncDir(parentOf(path));
  return true;
}

/** Opens the verified file; null if the path changed between the look and the open (a concurrent repair). */
function openVerified(path: string, seen: fs.BigIntStats): LockFile | null {
  let fd: number;
  try {
    fd = fs.openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP') return null;
    throw error;
  }
  const stat = fs.fstatSync(fd, { bigint: true });
  if (stat.dev !== seen.dev || stat.ino !== seen.ino || !stat.isFile() || stat.nlink !== 1n || !isPrivate(stat)) {
    fs.closeSync(fd);
    return null;
  }
  return { fd, dev: stat.dev, ino: stat.ino };
}

/**
 * Returns a descriptor on `<root>/.compute-lock`, creating it root:root 0600 if it is missing and
 * replacing one with another owner or mode (what earlier versions left: root 0644, which any account
 * could open and flock). Refuses anything but a regular file with one link, having changed nothing.
 */
export async function openLockFile(path: string, deadline: number, signal?: AbortSignal): Promise<LockFile> {
  for (let attempt = 0; attempt < OPEN_ATTEMPTS; attempt += 1) {
    const stat = lstatOrNull(path);
    if (stat === null) {
      createPrivate(path);
      continue;
    }
    const refused = refusal(path, stat);
    if (refused) throw refused;
    if (!isPrivate(stat)) {
      await replaceUnderDirLock(path, deadline, signal);
      continue;
    }
    const file = openVerified(path, stat);
    if (file) return file;
  }
  throw new ComputeError('host-command', `${path} kept changing while the helper opened it`, { path });
}

/**
 * Security: chmod would not be enough, as a process that opened the old file may flock it whenever
 * it likes; the path gets a new inode instead, and the old one locks nothing that matters.
 * Replacements by concurrent helpers are serialized by a flock on `<root>/accounts`, the one directory
 * every mutating operation has just verified to be root:root 0711 (`ensureRoot`), so no other account
 * can open it; the root itself may be an operator's 0755 directory. The file is looked at again under it.
 */
async function replaceUnderDirLock(path: string, deadline: number, signal?: AbortSignal): Promise<void> {
  const dir = rootLayout(parentOf(path)).accounts;
  const dirFd = fs.openSync(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    const held = await holdFlock(dirFd, deadline - Date.now(), signal, () => lockTimeout(path), dir);
    try {
      const stat = lstatOrNull(path);
      if (stat === null || refusal(path, stat) || isPrivate(stat)) return;
      await replaceOnceUnlocked(path, stat, deadline, signal);
    } finally {
      await held.release();
    }
  } finally {
    fs.closeSync(dirFd);
  }
}

/**
 * An older helper holding (or queued for) the old file's lock is mid-operation: the replacement waits
 * for it within the lock wait, so old and new helpers never change the host at once. A tenant's hold
 * is not waited for (`rootLockers`). The new file is ready before the wait, so the rename follows the
 * last look at once; an older helper that opened the old file just before the rename is waited for
 * after it (from then on the path names the new file, so none can open the old one any more).
 */
async function replaceOnceUnlocked(path: string, old: fs.BigIntStats, deadline: number, signal?: AbortSignal): Promise<void> {
  const prefix = `${path.slice(path.lastIndexOf('/') + 1)}${TEMP_MARK}`;
  sweepTemps(parentOf(path), prefix);
  const temp = `${parentOf(path)}/${prefix}${randomBytes(6).toString('hex')}`;
  createPrivate(temp);
  try {
    await waitForRootLockers(path, old, deadline, signal);
    beforeChange();
    fs.renameSync(temp, path);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  syncDir(parentOf(path));
  await waitForRootLockers(path, old, deadline, signal);
}

async function waitForRootLockers(path: string, old: fs.BigIntStats, deadline: number, signal?: AbortSignal): Promise<void> {
  while (rootLockers(old).length > 0) {
    if (signal?.aborted) throw signal.reason as Error;
    if (Date.now() >= deadline) throw lockTimeout(path);
    await sleep(HOLDER_POLL_MS, undefined, { signal }).catch(() => undefined);
  }
  if (signal?.aborted) throw signal.reason as Error;
}
