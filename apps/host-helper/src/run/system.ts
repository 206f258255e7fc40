// The one place the helper starts other programs: argument arrays (commands.ts), never a shell, a
// fixed environment, and bounded time and output. Operations reach it through the runner on their
// context, so a unit test can hand `apply` a recording runner instead and assert the exact commands.
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ComputeError } from '@occ-ssh/protocol';
import { diesWithHelperArgv, type Command } from './commands.js';
import { readUidHolders, type UidHolders } from './uid-holders.js';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

type Env = Readonly<Record<string, string>>;

interface RunOptions {
  timeoutMs?: number;
  maxBuffer?: number;
  env?: Env;
  killSignal?: NodeJS.Signals;
  signal?: AbortSignal;
}

/**
 * A child in its own process group, killed whole once `signal` aborts, once it has run `timeoutMs`, or
 * once it is found stopped; it dies with the helper too. stdout kept (bounded) only when `output`.
 */
export interface ChildOptions {
  env: Env;
  cwd: string;
  /** Written to the child's stdin, which stays closed (/dev/null) when absent. */
  stdin?: string;
  output: boolean;
  signal: AbortSignal;
  /** Its own bound, whatever the session has left: the work it does may be sized by an Agent. */
  timeoutMs: number;
}

export interface HostRunner {
  /** Runs to completion and returns the exit code; rejects (CommandNotRun) only when it could not be run or was killed. */
  run(command: Command, options?: RunOptions): Promise<CommandResult>;
  /** Runs a child that may take long (tree removal, work as an account, native setup); rejects with the signal's reason on abort. */
  runChild(command: Command, options: ChildOptions): Promise<{ code: number; stdout: string }>;
  /** A long-lived child the caller drives itself (the flock holder, journalctl's stream). */
  spawn(command: Command, options: { stdio: StdioOptions; env: Env }): ChildProcess;
  /** What holds a UID on the host: its processes and SysV IPC objects, read from /proc. */
  holdersOf(uid: number): UidHolders;
  /** SIGKILL to one process; one already gone is no error. */
  killProcess(pid: number): void;
}

/** A command that ran to no exit code: not found, killed at its bound, or cut by its signal. */
export class CommandNotRun extends ComputeError {
  constructor(
    file: string,
    reason: string,
    /** Killed (its time or output bound), as opposed to never started. */
    readonly killed: boolean,
    /** Killed because it was found stopped (by its account), not because it ran long. */
    readonly stopped = false,
  ) {
    super('host-command', `${file} could not be run (${reason})`);
  }
}

/**
 * Loaded by the first program the helper starts, not at its start: a verify-revision or a probe
 * starts none, and node:child_process is about a tenth of the helper's load (node:http and
 * node:fs/promises are loaded the same way, by the readiness checks that use them).
 */
const childProcess = () => process.getBuiltinModule('node:child_process');

const MAX_OUTPUT = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 60_000;
/** What a child answers at most on stdout (the account program's one JSON line). */
const MAX_CHILD_OUTPUT = 64 * 1024;

/** How often a running child is checked for having been stopped. */
const STOP_CHECK_MS = 100;

/**
 * Whether the process is stopped by a signal: `T` in the state field of /proc/<pid>/stat, after the
 * command name. A tracing stop (`t`) is not: only root can trace the helper's children (an account's
 * gateway has no right to them across its user namespace), and a root tracer (strace) stops them at
 * each traced call.
 */
export function stoppedProcess(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'T';
}

/** The only PATH host programs are looked up in. */
export const HOST_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** A fixed, minimal environment for programs the helper runs: they never see the caller's variables. */
export const PROGRAM_ENV = { PATH: HOST_PATH, LANG: 'C.UTF-8' } as const;
/** PROGRAM_ENV for systemd's tools: no pager, no colours. */
export const SYSTEMD_ENV = { ...PROGRAM_ENV, SYSTEMD_PAGER: '', SYSTEMD_COLORS: '0' } as const;

export const hostRunner: HostRunner = {
  run({ file, args }, options = {}) {
    return new Promise((resolve, reject) => {
      const bounds = { timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxBuffer: options.maxBuffer ?? MAX_OUTPUT, env: options.env ?? SYSTEMD_ENV, encoding: 'utf8' as const };
      const extra = { ...(options.killSignal ? { killSignal: options.killSignal } : {}), ...(options.signal ? { signal: options.signal } : {}) };
      childProcess().execFile(file, args, { ...bounds, ...extra }, (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(new CommandNotRun(file, String(error.code ?? error.signal ?? 'error'), error.killed === true));
          return;
        }
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      });
    });
  },

  runChild(command, options) {
    return new Promise((resolve, reject) => {
      const { signal } = options;
      const { file } = command;
      if (signal.aborted) return reject(signal.reason as Error);
      const stdin = options.stdin === undefined ? 'ignore' : 'pipe';
      // Security: output that could echo document text is discarded at this boundary unless asked for.
      // The child dies with the helper (PR_SET_PDEATHSIG, set after any change of credentials), so not
      // even a helper killed outright leaves it behind.
      const launched = diesWithHelperArgv(command);
      const child = childProcess().spawn(launched.file, launched.args, { stdio: [stdin, options.output ? 'pipe' : 'ignore', 'ignore'], env: options.env, cwd: options.cwd, detached: true });
      let stdout = '';
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        stdout = (stdout + chunk).slice(0, MAX_CHILD_OUTPUT);
      });
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(options.stdin ?? '');
      let settled = false;
      const finish = () => {
        settled = true;
        clearTimeout(bound);
        clearInterval(watch);
        signal.removeEventListener('abort', onAbort);
      };
      // The whole group, with SIGKILL, which reaches a stopped process too: children the program started
      // must not go on after the helper answered.
      const killGroup = (reason: Error) => {
        if (settled) return;
        finish();
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
        reject(reason);
      };
      const onAbort = () => killGroup(signal.reason as Error);
      const bound = setTimeout(() => killGroup(new CommandNotRun(file, `still running after ${options.timeoutMs} ms; killed`, true)), options.timeoutMs);
      // Security: an account may stop every process of its UID (kill(-1, SIGSTOP)); a child of ours it
      // stopped will not go on, so it is killed at once rather than waited for to its bound.
      const watch = setInterval(() => {
        if (child.pid !== undefined && stoppedProcess(child.pid)) killGroup(new CommandNotRun(file, 'stopped by a signal from outside the helper; killed', true, true));
      }, STOP_CHECK_MS);
      signal.addEventListener('abort', onAbort, { once: true });
      child.once('error', (error: NodeJS.ErrnoException) => {
        if (settled) return;
        finish();
        reject(new CommandNotRun(file, error.code ?? 'error', false));
      });
      child.once('close', (code, killedBy) => {
        if (settled) return;
        finish();
        // setpriv's own answer when it could not execute the program: not found (127) or not executable (126).
        if (code === 126 || code === 127) reject(new CommandNotRun(file, code === 127 ? 'not found' : 'not executable', false));
        else resolve({ code: code ?? (killedBy ? 128 : 1), stdout });
      });
    });
  },

  spawn({ file, args }, options) {
    return childProcess().spawn(file, args, { stdio: options.stdio, env: options.env });
  },

  holdersOf: readUidHolders,

  killProcess(pid) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  },
};

/** Runs a command that must succeed; the failure names the command, never its output. */
export async function mustRun(runner: HostRunner, command: Command, timeoutMs?: number): Promise<string> {
  const result = await runner.run(command, timeoutMs === undefined ? {} : { timeoutMs });
  if (result.code !== 0) {
    const reason = firstLine(result.stderr);
    throw new ComputeError('host-command', `${command.file} ${command.args[0] ?? ''} failed with exit code ${result.code}${reason ? `: ${reason}` : ''}`);
  }
  return result.stdout;
}

function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim()) ?? '').trim().slice(0, 300);
}
