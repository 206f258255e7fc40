// An exclusive lock file for the local ledger. It appears whole (a temp file linked into place), so
// no reader ever sees it half written; a dead owner's lock is removed only under a second lock, and
// only if it is still the very file seen dead, so a fresh lock taken meanwhile is never removed.
import { linkSync, lstatSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { ComputeError } from '@occ-ssh/protocol';

const OWNER = /^(\d+) [0-9a-f-]{36}$/;
const POLL_MS = 50;

interface Seen {
  readonly text: string;
  readonly ino: number;
}

/** Runs `action` holding `lock`; waits at most `waitMs` for another owner, then fails retryably. */
export async function withLockFile<T>(lock: string, waitMs: number, action: () => T): Promise<T> {
  const token = `${process.pid} ${randomUUID()}`;
  const deadline = Date.now() + waitMs;
  while (!take(lock, token)) {
    const seen = read(lock);
    if (seen && ownerDead(seen.text)) breakStale(lock, seen, token);
    if (Date.now() > deadline) throw timeout(lock, seen);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  try {
    return action();
  } finally {
    release(lock, token);
  }
}

/** link(2) fails if the lock exists: exactly one caller takes it, already holding its owner line. */
function take(lock: string, token: string): boolean {
  const temp = `${lock}.${randomUUID()}`;
  writeFileSync(temp, token, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temp, lock);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    rmSync(temp, { force: true });
  }
}

function read(lock: string): Seen | undefined {
  try {
    const { ino } = lstatSync(lock);
    return { text: readFileSync(lock, 'utf8'), ino };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Only a well-formed owner line whose process is gone is dead; anything else is left to its owner or the operator. */
function ownerDead(text: string): boolean {
  const pid = OWNER.exec(text)?.[1];
  if (pid === undefined) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Under `<lock>.break`, removes the lock only if it is still the one seen dead (same inode, same owner line). */
function breakStale(lock: string, seen: Seen, token: string): void {
  const breaker = `${lock}.break`;
  if (!take(breaker, token)) return;
  try {
    const now = read(lock);
    if (now && now.ino === seen.ino && now.text === seen.text) rmSync(lock);
  } finally {
    release(breaker, token);
  }
}

/** Removes the lock only while it is still ours: nobody else removes a live owner's lock. */
function release(lock: string, token: string): void {
  if (read(lock)?.text === token) rmSync(lock, { force: true });
}

function timeout(lock: string, seen: Seen | undefined): ComputeError {
  const owner = seen && OWNER.exec(seen.text)?.[1];
  const who = owner ? `process ${owner}` : 'an owner it cannot read (remove it by hand if no occ-ssh runs)';
  return new ComputeError('lock-timeout', `${lock} is held by ${who}; if ${lock}.break exists and no occ-ssh runs, remove it too`, { path: lock });
}
