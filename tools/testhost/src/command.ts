// Runs local commands from argv arrays (never a shell string) and reports their output.
import { spawnSync } from 'node:child_process';
import { collect } from '@occ-ssh/ssh-client';

/** Root's tools live in sbin directories, which a non-login PATH may lack. */
export function toolEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const dirs = (env['PATH'] ?? '').split(':').filter(Boolean);
  for (const d of ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin']) if (!dirs.includes(d)) dirs.push(d);
  return { ...env, PATH: dirs.join(':') };
}

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  input?: string | Buffer;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
}

/** Tool runs (debootstrap, npm, apt-get) print a lot but not this much; past it the run is stopped. */
const MAX_STDOUT_BYTES = 64 * 1024 * 1024;
const STDERR_KEPT_BYTES = 1024 * 1024;
/** No local step takes this long; one that does is stuck. */
const DEFAULT_TIMEOUT_MS = 60 * 60_000;

/** Runs a local command through the one bounded collector of @occ-ssh/ssh-client; rejects only when it cannot start. */
async function runCommand(cmd: string, args: readonly string[], opts: CommandOptions = {}): Promise<CommandResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const r = await collect(cmd, args, {
    ...(opts.input === undefined ? {} : { stdin: Buffer.from(opts.input) }),
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    env: toolEnv(opts.env),
    timeoutMs,
    killGraceMs: 0,
    maxStdoutBytes: MAX_STDOUT_BYTES,
    stderrKeptBytes: STDERR_KEPT_BYTES,
  });
  if (r.spawnFailed) throw new Error(`${cmd} could not be started${r.spawnError ? ` (${r.spawnError})` : ''}`);
  let stderr = r.stderrHead;
  if (r.timedOut) stderr += `\n[timed out after ${timeoutMs} ms]`;
  if (r.stdoutTruncated) stderr += `\n[stdout passed ${MAX_STDOUT_BYTES} bytes; stopped]`;
  return { code: r.exitCode, signal: r.signal, stdout: r.stdout, stderr };
}

function describeFailure(cmd: string, args: readonly string[], r: CommandResult): string {
  const how = r.code === null ? `signal ${r.signal ?? '?'}` : `exit ${r.code}`;
  const tail = (r.stderr.trim() || r.stdout.trim()).split('\n').slice(-15).join('\n');
  return `${cmd} ${args.join(' ')} failed (${how})${tail ? `:\n${tail}` : ''}`;
}

/** Runs a command and returns stdout, throwing with the stderr tail on failure. */
export async function mustRun(cmd: string, args: readonly string[], opts: CommandOptions = {}): Promise<string> {
  const r = await runCommand(cmd, args, opts);
  if (r.code !== 0) throw new Error(describeFailure(cmd, args, r));
  return r.stdout;
}

/**
 * Synchronous form, for teardown from a process 'exit' handler where nothing async can run (and the
 * claim removal those handlers call): the one synchronous spawn of the tools, kept in this module.
 */
export function runSync(cmd: string, args: readonly string[], timeoutMs = 30_000): CommandResult {
  const r = spawnSync(cmd, args, { env: toolEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
  return { code: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? String(r.error ?? '') };
}

export function log(message: string): void {
  if (process.env['OCC_TESTHOSTS_QUIET'] !== '1') process.stderr.write(`[testhost] ${message}\n`);
}
