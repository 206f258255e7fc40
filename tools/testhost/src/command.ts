// Runs local commands from argv arrays (never a shell string) and reports their output.
import { spawn, spawnSync } from 'node:child_process';

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

export function runCommand(cmd: string, args: readonly string[], opts: CommandOptions = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: toolEnv(opts.env),
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = opts.timeoutMs === undefined ? undefined : setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      if (timer) clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      let stderr = Buffer.concat(err).toString('utf8');
      if (timedOut) stderr += `\n[timed out after ${opts.timeoutMs} ms]`;
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr });
    });
    if (opts.input !== undefined) {
      // A remote command that ignores stdin closes the pipe early; that is not an error here.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(opts.input);
    }
  });
}

export function describeFailure(cmd: string, args: readonly string[], r: CommandResult): string {
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

/** Synchronous form, for teardown from a process 'exit' handler where nothing async can run. */
export function runSync(cmd: string, args: readonly string[]): CommandResult {
  const r = spawnSync(cmd, args, { env: toolEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  return { code: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? String(r.error ?? '') };
}

export function log(message: string): void {
  if (process.env['OCC_TESTHOSTS_QUIET'] !== '1') process.stderr.write(`[testhost] ${message}\n`);
}
