// The host-wide kernel flock on <root>/.compute-lock, held by a child that dies with the helper.
import { spawn, type ChildProcess } from 'node:child_process';
import { ComputeError } from '@occ-ssh/protocol';

const LOCK_WAIT_SECONDS = 30;
const CONFLICT_EXIT = 75;

interface HeldLock {
  waitedMs: number;
  acquiredAt: number;
  release(): Promise<void>;
}

/**
 * `flock --exclusive --wait 30 <lock> cat`: cat runs only once the lock is held, and echoes our
 * probe byte to say so. Its stdin is connected only to this helper, so however the helper dies, cat reads EOF,
 * exits, and the kernel drops the lock: there is never a stale lock to reclaim.
 * `signal` (the session's) ends the wait at once: a helper whose caller is gone must not queue for
 * the lock, take it, and hold up the next caller.
 */
export function acquireLock(lockPath: string, signal?: AbortSignal): Promise<HeldLock> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  const started = Date.now();
  const child = spawn('flock', ['--exclusive', '--close', '--wait', String(LOCK_WAIT_SECONDS), '--conflict-exit-code', String(CONFLICT_EXIT), lockPath, 'cat'], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' },
  });
  return new Promise((resolve, reject) => {
    let settled = false;
    const onAbort = () => fail(signal!.reason as ComputeError);
    const fail = (error: ComputeError) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      child.kill('SIGKILL');
      reject(error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', () => fail(new ComputeError('host-requirement', 'flock could not be run')));
    child.on('exit', (code) => {
      if (code === CONFLICT_EXIT) fail(new ComputeError('lock-timeout', `${lockPath} is still held after ${LOCK_WAIT_SECONDS} s`, { path: lockPath }));
      else fail(new ComputeError('host-command', `flock exited with code ${String(code)} before taking ${lockPath}`, { path: lockPath }));
    });
    child.stdout!.once('data', () => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      const acquiredAt = Date.now();
      resolve({ waitedMs: acquiredAt - started, acquiredAt, release: () => release(child) });
    });
    child.stdin!.on('error', () => undefined);
    child.stdin!.write('L');
  });
}

function release(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.stdin!.end();
  });
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
