// The host-wide kernel flock on <root>/.compute-lock, held by a child that dies with the helper.
import * as fs from 'node:fs';
import { ComputeError } from '@occ-ssh/protocol';
import { holdFlock } from './flock-child.js';
import { LOCK_WAIT_MS, lockTimeout, openLockFile } from './lock-file.js';

const ACQUIRE_ATTEMPTS = 3;

interface HeldLock {
  waitedMs: number;
  acquiredAt: number;
  release(): Promise<void>;
}

/**
 * Opens and verifies the lock file (`openLockFile`), then flocks that very descriptor, all within
 * one 30 s wait. Once held, the path must still name the locked file: a concurrent replacement of an
 * old file would otherwise leave this helper holding a lock nobody else takes, so it tries again.
 * `signal` (the session's) ends the wait at once.
 */
export async function acquireLock(lockPath: string, signal?: AbortSignal): Promise<HeldLock> {
  if (signal?.aborted) throw signal.reason as Error;
  const started = Date.now();
  const deadline = started + LOCK_WAIT_MS;
  for (let attempt = 0; attempt < ACQUIRE_ATTEMPTS; attempt += 1) {
    const file = await openLockFile(lockPath, deadline, signal);
    let held;
    try {
      held = await holdFlock(file.fd, deadline - Date.now(), signal, () => lockTimeout(lockPath), lockPath);
    } catch (error) {
      fs.closeSync(file.fd);
      throw error;
    }
    if (namesFile(lockPath, file)) {
      return { waitedMs: held.acquiredAt - started, acquiredAt: held.acquiredAt, release: () => held.release().finally(() => fs.closeSync(file.fd)) };
    }
    await held.release();
    fs.closeSync(file.fd);
  }
  throw new ComputeError('host-command', `${lockPath} was replaced each time the helper locked it`, { path: lockPath });
}

function namesFile(path: string, file: { dev: bigint; ino: bigint }): boolean {
  try {
    const stat = fs.lstatSync(path, { bigint: true });
    return stat.dev === file.dev && stat.ino === file.ino;
  } catch {
    return false;
  }
}

/**
 * The lock for one operation, which may step out of it for a wait that changes nothing (activation's
 * readiness wait). Wait and hold times add up over every time it is taken.
 */
export class LockScope {
  waitedMs = 0;
  heldMs = 0;
  private held: HeldLock | null = null;

  private constructor(
    private readonly lockPath: string,
    private readonly signal?: AbortSignal,
  ) {}

  static async take(lockPath: string, signal?: AbortSignal): Promise<LockScope> {
    const scope = new LockScope(lockPath, signal);
    await scope.acquire();
    return scope;
  }

  /** A scope not yet held: its operation reads first, without changing anything, and `enter`s before its first change. */
  static unheld(lockPath: string, signal?: AbortSignal): LockScope {
    return new LockScope(lockPath, signal);
  }

  async enter(): Promise<void> {
    if (!this.held) await this.acquire();
  }

  /**
   * Runs `wait` without the lock and takes it again before returning, so other operations on the
   * host proceed meanwhile. Whatever `wait` saw may be stale once it returns: the caller must
   * re-verify its state under the lock before any effect.
   */
  async outside<T>(wait: () => Promise<T>): Promise<T> {
    await this.release();
    const result = await wait();
    await this.acquire();
    return result;
  }

  async release(): Promise<void> {
    const held = this.held;
    if (!held) return;
    this.held = null;
    await held.release();
    this.heldMs += Date.now() - held.acquiredAt;
  }

  private async acquire(): Promise<void> {
    const held = await acquireLock(this.lockPath, this.signal);
    this.waitedMs += held.waitedMs;
    this.held = held;
  }
}
