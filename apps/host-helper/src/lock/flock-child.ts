// A kernel flock on a descriptor the helper opened and verified, held by a child that dies with the helper.
import type { ChildProcess } from 'node:child_process';
import { ComputeError } from '@occ-ssh/protocol';
import { flockHoldArgv } from '../run/commands.js';
import { HOST_PATH, hostRunner } from '../run/system.js';

const CONFLICT_EXIT = 75;

export interface HeldFlock {
  acquiredAt: number;
  release(): Promise<void>;
}

/**
 * `flock --exclusive --close --wait <s> /proc/self/fd/3 cat`, with the helper's descriptor as the
 * child's fd 3. flock opens that magic link, which names the very file the descriptor refers to (no
 * lookup of the lock path, so nothing planted there in between is locked instead), then runs cat,
 * which echoes our probe byte once the lock is held. Its stdin is connected only to this helper, so
 * however the helper dies, cat reads EOF, exits, and the kernel drops the lock: there is never a
 * stale lock to reclaim. `signal` ends the wait at once: a helper whose caller is gone must not queue
 * for the lock, take it, and hold up the next caller. `timedOut` is the error of a full wait.
 */
export function holdFlock(fd: number, waitMs: number, signal: AbortSignal | undefined, timedOut: () => ComputeError, path: string): Promise<HeldFlock> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  const seconds = (Math.max(waitMs, 100) / 1000).toFixed(1);
  // The real runner: the host lock is taken around an operation, before its plan, and is never recorded.
  const child = hostRunner.spawn(flockHoldArgv(seconds, CONFLICT_EXIT), { stdio: ['pipe', 'pipe', 'ignore', fd], env: { PATH: HOST_PATH } });
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
      if (code === CONFLICT_EXIT) fail(timedOut());
      else fail(new ComputeError('host-command', `flock exited with code ${String(code)} before taking ${path}`, { path }));
    });
    child.stdout!.once('data', () => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      resolve({ acquiredAt: Date.now(), release: () => release(child) });
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
