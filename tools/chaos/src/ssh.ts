// The campaign's two ways onto a host: a fresh strict ssh client per helper call (the one the
// campaign SIGKILLs), and one multiplexed connection for the fast read-only checks in between.
// Both use the product's strict argv and bounded collector (@occ-ssh/ssh-client).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { collect, remoteCommand, sshArgv, sshEnv, type SshClientSettings } from '@occ-ssh/ssh-client';
import type { TestHost } from '@occ-ssh/testhost';

export interface SshResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** True when the campaign's SIGKILL ended the client (not when it had already exited). */
  killed: boolean;
  ms: number;
  /** When the campaign killed the client, ms after it was spawned. */
  killedAtMs?: number;
}

export interface SpawnOptions {
  input?: string | Buffer;
  /** SIGKILL the local ssh client this many ms after it was spawned. */
  killAfterMs?: number;
  /** SIGKILL the local ssh client as soon as this many lines of its stdout have arrived. */
  killAfterLines?: number;
  timeoutMs?: number;
  /** Called with the ssh client's pid once it is running (the secrets scan reads its argv). */
  onSpawn?: (pid: number) => void;
}

/** A host that vanishes mid-session (a reboot) must not leave a client hanging: keepalives every 5 s. */
const SERVER_ALIVE_INTERVAL_SECONDS = 5;
/** The on-host collector's report is the largest thing read back; the product's 4 MiB bound is for helper calls. */
const MAX_STDOUT_BYTES = 64 * 1024 * 1024;
const STDERR_KEPT_BYTES = 64 * 1024;

function settingsOf(host: TestHost): SshClientSettings {
  return { identityFile: host.identityFile, knownHostsFile: host.knownHostsFile, connectTimeoutSeconds: 10, serverAliveIntervalSeconds: SERVER_ALIVE_INTERVAL_SECONDS };
}

async function runSsh(argv: readonly string[], options: SpawnOptions): Promise<SshResult> {
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
  const result = await collect('ssh', argv, {
    stdin: Buffer.from(options.input ?? ''),
    timeoutMs: options.timeoutMs ?? 240_000,
    killGraceMs: 0,
    signal: stop.signal,
    env: sshEnv(),
    maxStdoutBytes: MAX_STDOUT_BYTES,
    stderrKeptBytes: STDERR_KEPT_BYTES,
    ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
    ...(limit === undefined
      ? {}
      : {
          onStdout: (chunk: Buffer) => {
            for (const byte of chunk) if (byte === 0x0a) lines += 1;
            if (lines >= limit) kill();
          },
        }),
  });
  if (killTimer) clearTimeout(killTimer);
  // The kill landed only if the client died of it; one that had already exited keeps its status.
  const killed = result.aborted && result.signal === 'SIGKILL';
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderrHead, killed, ms: Date.now() - started, ...(killed && killedAtMs !== undefined ? { killedAtMs } : {}) };
}

/** One host, reached both ways. The multiplexed master is (re)opened on demand, e.g. after a reboot. */
export class HostLink {
  private readonly controlDir = mkdtempSync(`${tmpdir()}/occ-chaos-`);
  private readonly controlPath = `${this.controlDir}/mux`;

  constructor(readonly host: TestHost) {}

  get nodePath(): string {
    return this.host.nodePath;
  }

  /** The argv a fresh client gets for `remoteCommand` (the controller's strict argv, faster keepalives). */
  freshArgv(command: string): string[] {
    return sshArgv(settingsOf(this.host), this.host, command);
  }

  /** A new ssh client for one command: what the controller does for each helper call. */
  fresh(command: string, options: SpawnOptions = {}): Promise<SshResult> {
    return runSsh(this.freshArgv(command), options);
  }

  /** A command over the shared master connection; argv elements are quoted for the remote shell. */
  async exec(argv: readonly string[], options: Omit<SpawnOptions, 'killAfterMs'> = {}): Promise<SshResult> {
    return this.muxCommand(remoteCommand(argv), options);
  }

  /** Like exec, but throws on a nonzero exit. */
  async run(argv: readonly string[], options: Omit<SpawnOptions, 'killAfterMs'> = {}): Promise<string> {
    const result = await this.exec(argv, options);
    if (result.code !== 0) throw new Error(`on ${this.host.name}: ${remoteCommand(argv)} exited ${String(result.code)}: ${result.stderr.trim().slice(0, 500)}`);
    return result.stdout;
  }

  /** A raw remote command line over the master connection. */
  async muxCommand(command: string, options: Omit<SpawnOptions, 'killAfterMs'> = {}): Promise<SshResult> {
    const argv = sshArgv(settingsOf(this.host), this.host, command, ['-o', 'ControlMaster=auto', '-o', `ControlPath=${this.controlPath}`, '-o', 'ControlPersist=600']);
    const result = await runSsh(argv, options);
    // 255 is ssh's own failure (a master lost to a reboot or an sshd restart): one clean retry.
    if (result.code === 255) {
      await this.closeMaster();
      return runSsh(argv, options);
    }
    return result;
  }

  async closeMaster(): Promise<void> {
    await runSsh(sshArgv(settingsOf(this.host), this.host, undefined, ['-o', `ControlPath=${this.controlPath}`, '-O', 'exit']), { timeoutMs: 10_000 });
  }

  async close(): Promise<void> {
    await this.closeMaster().catch(() => undefined);
    rmSync(this.controlDir, { recursive: true, force: true });
  }
}
