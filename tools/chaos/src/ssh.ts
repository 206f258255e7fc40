// The campaign's two ways onto a host: a fresh strict ssh client per helper call (the one the
// campaign SIGKILLs), and one multiplexed connection for the fast read-only checks in between.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { TestHost } from '@occ-ssh/testhost';
import { shellCommandLine } from '@occ-ssh/testhost';

export interface SshResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** True when the campaign killed the client itself (SIGKILL). */
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

/** Strict client options: no config file, only this key and this known_hosts file, batch mode. */
function strictOptions(host: TestHost): string[] {
  return [
    '-F', 'none', '-T',
    '-i', host.identityFile,
    '-o', 'BatchMode=yes',
    '-o', 'StrictHostKeyChecking=yes',
    '-o', 'IdentitiesOnly=yes',
    '-o', `UserKnownHostsFile=${host.knownHostsFile}`,
    '-o', 'GlobalKnownHostsFile=/dev/null',
    '-o', 'UpdateHostKeys=no',
    '-o', 'CheckHostIP=no',
    '-o', 'ConnectTimeout=10',
    // A host that vanishes mid-session (a reboot) must not leave a client hanging.
    '-o', 'ServerAliveInterval=5',
    '-o', 'ServerAliveCountMax=3',
    '-o', 'LogLevel=ERROR',
    '-p', String(host.port),
    '-l', host.user,
  ];
}

function runSsh(argv: readonly string[], options: SpawnOptions): Promise<SshResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('ssh', argv, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let killed = false;
    let killedAtMs: number | undefined;
    let lines = 0;
    const kill = () => {
      killed = child.exitCode === null && child.signalCode === null;
      if (killed) killedAtMs = Date.now() - started;
      child.kill('SIGKILL');
    };
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    child.stdout.on('data', (chunk: Buffer) => {
      out.push(chunk);
      if (options.killAfterLines === undefined || killedAtMs !== undefined) return;
      for (const byte of chunk) if (byte === 0x0a) lines += 1;
      if (lines >= options.killAfterLines) kill();
    });
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.stdin.on('error', () => undefined);
    const killTimer =
      options.killAfterMs === undefined
        ? undefined
        : setTimeout(kill, options.killAfterMs);
    const timeout = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 240_000);
    child.on('error', () => undefined);
    child.on('close', (code) => {
      if (killTimer) clearTimeout(killTimer);
      clearTimeout(timeout);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), killed, ms: Date.now() - started, ...(killedAtMs === undefined ? {} : { killedAtMs }) });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** One host, reached both ways. The multiplexed master is (re)opened on demand, e.g. after a reboot. */
export class HostLink {
  private readonly controlDir = mkdtempSync(`${tmpdir()}/occ-chaos-`);
  private readonly controlPath = `${this.controlDir}/mux`;

  constructor(readonly host: TestHost) {}

  get nodePath(): string {
    return this.host.nodePath;
  }

  /** The argv a fresh client gets for `remoteCommand` (the same strict options the controller uses). */
  freshArgv(remoteCommand: string): string[] {
    return [...strictOptions(this.host), '--', this.host.address, remoteCommand];
  }

  /** A new ssh client for one command: what the controller does for each helper call. */
  fresh(remoteCommand: string, options: SpawnOptions = {}): Promise<SshResult> {
    return runSsh(this.freshArgv(remoteCommand), options);
  }

  /** A command over the shared master connection; argv elements are quoted for the remote shell. */
  async exec(argv: readonly string[], options: Omit<SpawnOptions, 'killAfterMs'> = {}): Promise<SshResult> {
    return this.muxCommand(shellCommandLine(argv), options);
  }

  /** Like exec, but throws on a nonzero exit. */
  async run(argv: readonly string[], options: Omit<SpawnOptions, 'killAfterMs'> = {}): Promise<string> {
    const result = await this.exec(argv, options);
    if (result.code !== 0) throw new Error(`on ${this.host.name}: ${shellCommandLine(argv)} exited ${String(result.code)}: ${result.stderr.trim().slice(0, 500)}`);
    return result.stdout;
  }

  /** A raw remote command line over the master connection. */
  async muxCommand(remoteCommand: string, options: Omit<SpawnOptions, 'killAfterMs'> = {}): Promise<SshResult> {
    const argv = [
      ...strictOptions(this.host),
      '-o', 'ControlMaster=auto',
      '-o', `ControlPath=${this.controlPath}`,
      '-o', 'ControlPersist=600',
      '--', this.host.address, remoteCommand,
    ];
    const result = await runSsh(argv, options);
    // 255 is ssh's own failure (a master lost to a reboot or an sshd restart): one clean retry.
    if (result.code === 255) {
      await this.closeMaster();
      return runSsh(argv, options);
    }
    return result;
  }

  async closeMaster(): Promise<void> {
    await runSsh([...strictOptions(this.host), '-o', `ControlPath=${this.controlPath}`, '-O', 'exit', '--', this.host.address], { timeoutMs: 10_000 });
  }

  async close(): Promise<void> {
    await this.closeMaster().catch(() => undefined);
    rmSync(this.controlDir, { recursive: true, force: true });
  }
}
