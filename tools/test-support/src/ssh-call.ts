// One ssh client run for a test's call to a real host: the product's strict argv and bounded
// collector (@occ-ssh/ssh-client), plus the SIGKILLs the interruption tests and chaos aim.
import { collect, sshArgv, sshEnv, type ProcessResult } from '@occ-ssh/ssh-client';

/** Where and as whom: structurally a booted test host. */
export interface SshHost {
  address: string;
  port: number;
  user: string;
  identityFile: string;
  knownHostsFile: string;
  /** Seconds between keepalives (the product's 15 unless given). */
  serverAliveIntervalSeconds?: number;
  /**
   * The ssh options of the host's shared connection (a booted test host's master), if it has one.
   * A call goes over it unless it needs a client of its own: one it kills, watches, or gives options.
   */
  readonly sharedConnectionOptions?: readonly string[] | undefined;
}

export interface SshCallOptions {
  input?: string | Buffer;
  /** SIGKILL the local ssh client this many ms after it was spawned. */
  killAfterMs?: number;
  /** SIGKILL the local ssh client as soon as this many lines of its stdout have arrived. */
  killAfterLines?: number;
  /** Past this the client is SIGKILLed (default 240 s). */
  timeoutMs?: number;
  /** Called with the ssh client's pid once it is running. */
  onSpawn?: (pid: number) => void;
  /** More client options after the strict ones (a ControlPath, `-O exit`). */
  extra?: readonly string[];
  /** A connection of this call's own even where the host has a shared one (a test that kills its sshd session). */
  ownConnection?: boolean;
}

/** The collector's one result, with `code` (= exitCode) and `stderr` (= stderrHead) under the names the host tests read, and the kills. */
export interface SshCallResult extends ProcessResult {
  code: number | null;
  stderr: string;
  /** True when one of the kills above ended the client (not when it had already exited). */
  killed: boolean;
  ms: number;
  /** When the client was killed, ms after it was spawned. */
  killedAtMs?: number;
}

/** A report collected on a host is the largest thing read back; the product's 4 MiB bound is for helper calls. */
const MAX_STDOUT_BYTES = 64 * 1024 * 1024;
const STDERR_KEPT_BYTES = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 240_000;

/**
 * The client options for a call: its own, or the host's shared connection. The product's default
 * transport (openssh-mux) shares one too; a call whose client is killed, watched or given options
 * has one of its own, as the system-ssh transport does for every call.
 */
export function connectionOptions(host: SshHost, options: SshCallOptions): readonly string[] {
  if (options.extra) return options.extra;
  const alone = options.ownConnection || options.killAfterMs !== undefined || options.killAfterLines !== undefined || options.onSpawn !== undefined;
  return alone ? [] : (host.sharedConnectionOptions ?? []);
}

export function sshCallArgv(host: SshHost, command: string | undefined, extra: readonly string[] = []): string[] {
  const settings = {
    identityFile: host.identityFile,
    knownHostsFile: host.knownHostsFile,
    connectTimeoutSeconds: 10,
    ...(host.serverAliveIntervalSeconds === undefined ? {} : { serverAliveIntervalSeconds: host.serverAliveIntervalSeconds }),
  };
  return sshArgv(settings, host, command, extra);
}

/** Runs `command` (a remote command line; absent for a control command in `extra`) on the host. */
export async function sshCall(host: SshHost, command: string | undefined, options: SshCallOptions = {}): Promise<SshCallResult> {
  const started = Date.now();
  const stop = new AbortController();
  let killedAtMs: number | undefined;
  let lines = 0;
  const kill = () => {
    if (killedAtMs !== undefined) return;
    killedAtMs = Date.now() - started;
    stop.abort();
  };
  const killTimer = options.killAfterMs === undefined ? undefined : setTimeout(kill, options.killAfterMs);
  const limit = options.killAfterLines;
  const onStdout = (chunk: Buffer) => {
    for (const byte of chunk) if (byte === 0x0a) lines += 1;
    if (limit !== undefined && lines >= limit) kill();
  };
  const result = await collect('ssh', sshCallArgv(host, command, connectionOptions(host, options)), {
    stdin: Buffer.from(options.input ?? ''),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    killGraceMs: 0,
    signal: stop.signal,
    env: sshEnv(),
    maxStdoutBytes: MAX_STDOUT_BYTES,
    stderrKeptBytes: STDERR_KEPT_BYTES,
    ...(limit === undefined ? {} : { onStdout }),
    ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
  });
  if (killTimer) clearTimeout(killTimer);
  // The kill landed only if the client died of it; one that had already exited keeps its status.
  const killed = result.aborted && result.signal === 'SIGKILL';
  return { ...result, code: result.exitCode, stderr: result.stderrHead, killed, ms: Date.now() - started, ...(killed ? { killedAtMs: killedAtMs! } : {}) };
}
