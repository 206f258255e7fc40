// Runs one local process with an argv (never a shell) and collects its output within a bound: the
// one place the controller and the tools spawn a child. `collect` waits for it; `start` hands back
// the running child too (an ssh master, a detached nspawn, a pipeline stage), with the same result
// shape once it ends. Success and failure share that shape, with flags.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { BoundedOutput, type CapturedOutput, type OutputLimits } from './output.js';

export interface CollectOptions extends Omit<OutputLimits, 'onOverflow'> {
  /** Written to the child's stdin, which is then closed; without it stdin is /dev/null. */
  stdin?: Buffer;
  /** Past this the child is stopped and `timedOut` set. */
  timeoutMs: number;
  /** Aborting stops the child and sets `aborted`. */
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Called with the child's pid once it is running (chaos reads its argv from /proc). */
  onSpawn?: (pid: number) => void;
  /** SIGTERM, then SIGKILL after this long (default 3 s); 0 sends SIGKILL at once. */
  killGraceMs?: number;
  /** Stop the child once stdout passes its bound, rather than read on (default true). */
  stopOnOverflow?: boolean;
}

export interface StartOptions extends Omit<CollectOptions, 'timeoutMs' | 'stdin'> {
  /** Without it the child runs until it ends or is stopped. */
  timeoutMs?: number;
  /** Written to stdin as above, or a stream piped into it (the previous stage of a pipeline). */
  stdin?: Buffer | Readable;
  /** stdout is not collected but left readable as `child.stdout`, for the next stage of a pipeline. */
  pipeStdout?: boolean;
  /** stdout and stderr go to this open file instead (a console log); nothing is collected. */
  outputFd?: number;
  /** Its own session and process group, not waited for by this process: it may outlive it. */
  detached?: boolean;
}

export interface ProcessResult extends CapturedOutput {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** The child could not be started (no such program, no permission). */
  spawnFailed: boolean;
  /** Why it could not be started: the error code (ENOENT, EACCES), never a message that might quote input. */
  spawnError?: string;
}

export interface Started {
  child: ChildProcess;
  /** Settles once the child has ended, never rejects. */
  done: Promise<ProcessResult>;
  /** SIGTERM, then SIGKILL after the grace (as a timeout does); `aborted` is not set. */
  stop(): void;
}

const DEFAULT_KILL_GRACE_MS = 3000;

/** Whether a run ended as a success: started, exit 0, not stopped. */
export const succeeded = (result: ProcessResult): boolean => result.exitCode === 0;

export function collect(command: string, args: readonly string[], options: CollectOptions): Promise<ProcessResult> {
  return start(command, args, options).done;
}

export function start(command: string, args: readonly string[], options: StartOptions): Started {
  const buffered = Buffer.isBuffer(options.stdin);
  const out = options.outputFd ?? 'pipe';
  const child = spawn(command, args, {
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', out, out],
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.detached ? { detached: true } : {}),
  });
  if (options.detached) child.unref();
  if (child.pid !== undefined) options.onSpawn?.(child.pid);
  let timedOut = false;
  let aborted = false;
  let spawnFailed = false;
  let spawnError: string | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const terminate = () => {
    if (grace === 0) {
      child.kill('SIGKILL');
      return;
    }
    child.kill('SIGTERM');
    killTimer ??= setTimeout(() => child.kill('SIGKILL'), grace);
    killTimer.unref();
  };
  const output = new BoundedOutput({
    ...options,
    ...(options.stopOnOverflow === false ? {} : { onOverflow: terminate }),
  });
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          terminate();
        }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    terminate();
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  if (!options.pipeStdout) child.stdout?.on('data', output.stdout);
  child.stderr?.on('data', output.stderr);
  if (child.stdin) {
    child.stdin.on('error', () => undefined);
    if (buffered || options.stdin === undefined) child.stdin.end(options.stdin);
    else (options.stdin as Readable).pipe(child.stdin);
  }
  const done = new Promise<ProcessResult>((resolve) => {
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnFailed = true;
      spawnError = error.code;
      // A child that never started emits no 'close' when it has no pipes to close.
      if (child.pid === undefined && out !== 'pipe') finish(null, null);
    });
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (timer) clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode, signal, ...output.captured(), timedOut, aborted, spawnFailed, ...(spawnError === undefined ? {} : { spawnError }) });
    };
    child.on('close', finish);
  });
  return { child, done, stop: terminate };
}
