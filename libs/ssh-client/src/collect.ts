// Runs one local process with an argv (never a shell) and collects its output within a bound: the
// one place the controller and the tools spawn a child to collect it. Success and failure share one
// result shape with flags.
import { spawn } from 'node:child_process';
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

const DEFAULT_KILL_GRACE_MS = 3000;

export function collect(command: string, args: readonly string[], options: CollectOptions): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      ...(options.env ? { env: options.env } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
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
    };
    const output = new BoundedOutput({
      ...options,
      ...(options.stopOnOverflow === false ? {} : { onOverflow: terminate }),
    });
    const timer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      terminate();
    };
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout?.on('data', output.stdout);
    child.stderr?.on('data', output.stderr);
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnFailed = true;
      spawnError = error.code;
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode, signal, ...output.captured(), timedOut, aborted, spawnFailed, ...(spawnError === undefined ? {} : { spawnError }) });
    });
    if (child.stdin) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.stdin);
    }
  });
}
