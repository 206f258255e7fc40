// Runs commands on a test host with the strict ssh argv of @occ-ssh/ssh-client, argv quoted for the
// remote shell by its remoteCommand, output collected by its bounded collector.
import { collect, masterExitOptions, multiplexOptions, remoteCommand, sshArgv, sshEnv, type ProcessResult, type SshClientSettings } from '@occ-ssh/ssh-client';

export interface SshTarget {
  address: string;
  port: number;
  user: string;
  identityFile: string;
  knownHostsFile: string;
  /**
   * A control socket path: calls share one connection (a master ssh starts with the first call and
   * ends after MASTER_IDLE_SECONDS unused), so a test's hundreds of short commands pay one key
   * exchange instead of one each. ssh itself falls back to a connection of its own when the master
   * cannot take a session (gone with a reboot, or at sshd's MaxSessions).
   */
  controlPath?: string;
}

export interface ExecOptions {
  input?: string | Buffer;
  timeoutMs?: number;
}

/**
 * The collector's one result, plus two short names the host tests read (`(await host.exec(...)).code`
 * across apps/): `code` is `exitCode`, `stderr` the kept stderr with the collector's notes appended.
 */
export interface ExecResult extends ProcessResult {
  code: number | null;
  stderr: string;
}

/** A test host answers within seconds or is broken; a call without a timeout still ends. */
const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** Tests read journals and files through exec; more than this is a test's mistake. */
const MAX_STDOUT_BYTES = 64 * 1024 * 1024;
const STDERR_KEPT_BYTES = 256 * 1024;
/** Past a test file's last command the master lingers this long, then exits by itself. */
const MASTER_IDLE_SECONDS = 20;

/** The options that put a call on the target's shared connection (none without a control socket). */
export function muxOptions(t: SshTarget): string[] {
  return t.controlPath === undefined ? [] : multiplexOptions(t.controlPath, MASTER_IDLE_SECONDS);
}

function clientSettings(t: SshTarget, connectTimeoutSeconds = 5): SshClientSettings {
  return { identityFile: t.identityFile, knownHostsFile: t.knownHostsFile, connectTimeoutSeconds };
}

export async function sshExec(t: SshTarget, argv: readonly string[], opts: ExecOptions = {}): Promise<ExecResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const r = await collect('ssh', sshArgv(clientSettings(t), t, remoteCommand(argv), muxOptions(t)), {
    ...(opts.input === undefined ? {} : { stdin: Buffer.from(opts.input) }),
    timeoutMs,
    killGraceMs: 0,
    env: sshEnv(),
    maxStdoutBytes: MAX_STDOUT_BYTES,
    stderrKeptBytes: STDERR_KEPT_BYTES,
  });
  let stderr = r.stderrHead;
  if (r.spawnFailed) stderr += '\n[ssh could not be started]';
  if (r.timedOut) stderr += `\n[timed out after ${timeoutMs} ms]`;
  if (r.stdoutTruncated) stderr += `\n[stdout passed ${MAX_STDOUT_BYTES} bytes; stopped]`;
  return { ...r, code: r.exitCode, stderr };
}

export async function sshRun(t: SshTarget, argv: readonly string[], opts: ExecOptions = {}): Promise<string> {
  const r = await sshExec(t, argv, opts);
  if (r.code !== 0) {
    const how = r.code === null ? 'was killed (timeout?)' : `exited ${r.code}`;
    throw new Error(`on ${t.address}: ${remoteCommand(argv)} ${how}\n${r.stderr.trim()}`);
  }
  return r.stdout;
}

/** Ends the target's master connection, if one runs (a reboot or a teardown is next). */
export async function closeMaster(t: SshTarget): Promise<void> {
  if (t.controlPath === undefined) return;
  await collect('ssh', sshArgv(clientSettings(t), t, undefined, masterExitOptions(t.controlPath)), {
    timeoutMs: 10_000,
    killGraceMs: 0,
    env: sshEnv(),
    maxStdoutBytes: 4096,
    stderrKeptBytes: 4096,
  });
}
