// Runs commands on a test host over strictly checked ssh, with argv quoted for the remote shell.
import { runCommand, type CommandResult } from './command.js';
import { shellCommandLine } from './quote.js';

export interface SshTarget {
  address: string;
  port: number;
  user: string;
  identityFile: string;
  knownHostsFile: string;
}

export interface ExecOptions {
  input?: string | Buffer;
  timeoutMs?: number;
}

export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** No user or system ssh config is read, and only the given key and known_hosts file count. */
export function sshArgs(t: SshTarget, connectTimeoutS = 5): string[] {
  return [
    '-F', '/dev/null',
    '-i', t.identityFile,
    '-p', String(t.port),
    '-o', 'BatchMode=yes',
    '-o', 'IdentitiesOnly=yes',
    '-o', 'StrictHostKeyChecking=yes',
    '-o', `UserKnownHostsFile=${t.knownHostsFile}`,
    '-o', 'GlobalKnownHostsFile=/dev/null',
    '-o', 'UpdateHostKeys=no',
    '-o', 'CheckHostIP=no',
    '-o', `ConnectTimeout=${connectTimeoutS}`,
    '-o', 'LogLevel=ERROR',
    '-l', t.user,
  ];
}

export async function sshExec(t: SshTarget, argv: readonly string[], opts: ExecOptions = {}): Promise<ExecResult> {
  // `--` before the destination ends ssh's option parsing, which otherwise resumes after it.
  const args = [...sshArgs(t), ...(opts.input === undefined ? ['-n'] : []), '--', t.address, shellCommandLine(argv)];
  const r: CommandResult = await runCommand('ssh', args, {
    ...(opts.input === undefined ? {} : { input: opts.input }),
    ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
  });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
}

export async function sshRun(t: SshTarget, argv: readonly string[], opts: ExecOptions = {}): Promise<string> {
  const r = await sshExec(t, argv, opts);
  if (r.code !== 0) {
    const how = r.code === null ? 'was killed (timeout?)' : `exited ${r.code}`;
    throw new Error(`on ${t.address}: ${shellCommandLine(argv)} ${how}\n${r.stderr.trim()}`);
  }
  return r.stdout;
}
