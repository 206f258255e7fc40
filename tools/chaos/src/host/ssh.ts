// The campaign's two ways onto a host: a fresh strict ssh client per helper call (the one the
// campaign SIGKILLs), and one multiplexed connection for the fast read-only checks in between.
// Both are test support's ssh client: the product's strict argv and bounded collector.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { masterExitOptions, multiplexOptions, remoteCommand } from '@occ-ssh/ssh-client';
import { sshCall, type RemoteHost, type SshCallOptions, type SshCallResult } from '@occ-ssh/test-support';
import type { TestHost } from '@occ-ssh/testhost';

type MuxOptions = Omit<SshCallOptions, 'killAfterMs' | 'extra'>;

/** One host, reached both ways. The multiplexed master is (re)opened on demand, e.g. after a reboot. */
export class HostLink implements RemoteHost {
  /** A host that vanishes mid-session (a reboot) must not leave a client hanging: keepalives every 5 s, not 15. */
  readonly serverAliveIntervalSeconds = 5;
  private readonly controlDir = mkdtempSync(`${tmpdir()}/occ-chaos-`);
  private readonly controlPath = `${this.controlDir}/mux`;

  constructor(readonly host: TestHost) {}

  get address(): string {
    return this.host.address;
  }
  get port(): number {
    return this.host.port;
  }
  get user(): string {
    return this.host.user;
  }
  get identityFile(): string {
    return this.host.identityFile;
  }
  get knownHostsFile(): string {
    return this.host.knownHostsFile;
  }
  get nodePath(): string {
    return this.host.nodePath;
  }
  /**
   * What every call through this link runs as the gateway (`runtime.openclawPath`): the fixture
   * gateway, or the entry a lane put in front of it (setup-gateway.ts).
   */
  get fixtureGatewayPath(): string {
    return this.gateway ?? this.host.fixtureGatewayPath;
  }

  private gateway: string | undefined;

  /** From now on, calls through this link run `path` as the gateway. */
  useGateway(path: string): void {
    this.gateway = path;
  }

  /** A new ssh client for one command: what the controller does for each helper call. */
  fresh(command: string, options: SshCallOptions = {}): Promise<SshCallResult> {
    return sshCall(this, command, options);
  }

  /** A command over the shared master connection; argv elements are quoted for the remote shell. */
  exec(argv: readonly string[], options: MuxOptions = {}): Promise<SshCallResult> {
    return this.muxCommand(remoteCommand(argv), options);
  }

  /** Like exec, but throws on a nonzero exit. */
  async run(argv: readonly string[], options: MuxOptions = {}): Promise<string> {
    const result = await this.exec(argv, options);
    if (result.code !== 0) throw new Error(`on ${this.host.name}: ${remoteCommand(argv)} exited ${String(result.code)}: ${result.stderr.trim().slice(0, 500)}`);
    return result.stdout;
  }

  /** A raw remote command line over the master connection. */
  async muxCommand(command: string, options: MuxOptions = {}): Promise<SshCallResult> {
    const extra = multiplexOptions(this.controlPath, 600);
    const result = await sshCall(this, command, { ...options, extra });
    // 255 is ssh's own failure (a master lost to a reboot or an sshd restart): one clean retry.
    if (result.code === 255) {
      await this.closeMaster();
      return sshCall(this, command, { ...options, extra });
    }
    return result;
  }

  /** For a helper call's `send`: the same call over the master connection. */
  readonly mux = (command: string, input: Buffer): Promise<SshCallResult> => this.muxCommand(command, { input });

  async closeMaster(): Promise<void> {
    await sshCall(this, undefined, { extra: masterExitOptions(this.controlPath), timeoutMs: 10_000 });
  }

  async close(): Promise<void> {
    await this.closeMaster().catch(() => undefined);
    rmSync(this.controlDir, { recursive: true, force: true });
  }
}
