// The TestHost handle tests use: strict ssh exec, journal access, reboot and idempotent down.
import { bootHost, type BootOptions } from './boot.js';
import { emptyHostCgroups, hostCgroupDirs, resourceControllerDirs } from './cgroups.js';
import { log } from './command.js';
import { writeHostRecord, type HostRecord } from './host-record.js';
import { retrack, untrack } from './live-hosts.js';
import { reapplyAddresses } from './network.js';
import { isRunning, launchNspawn, stopNspawn, waitExit } from './nspawn.js';
import { HOST_PATHS } from './paths.js';
import { waitForSsh } from './ready.js';
import { closeMaster, muxOptions, sshExec, sshRun, type ExecOptions, type ExecResult, type SshTarget } from './ssh.js';
import { downHost } from './teardown.js';
import type { ImageChoice, Variant } from './recipe.js';

export interface TestHost extends AsyncDisposable {
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly user: 'root';
  readonly identityFile: string;
  readonly knownHostsFile: string;
  readonly nodePath: string;
  readonly openclawPath: string;
  readonly fixtureGatewayPath: string;
  /**
   * The ssh options that put a call on this host's shared connection (ssh.ts), for helper calls
   * that need no connection of their own (@occ-ssh/test-support); undefined when the host has none.
   */
  readonly sharedConnectionOptions: readonly string[] | undefined;
  /**
   * Runs argv on the host over strict ssh (BatchMode, StrictHostKeyChecking=yes, IdentitiesOnly,
   * explicit known_hosts); each argv element is quoted for the remote shell. Calls share one master
   * connection (ssh.ts), as do the helper calls tests make through @occ-ssh/test-support unless they
   * kill their client or its session.
   */
  exec(argv: readonly string[], opts?: ExecOptions): Promise<ExecResult>;
  /** Same, but throws (with stderr in the message) on a nonzero exit. */
  run(argv: readonly string[], opts?: ExecOptions): Promise<string>;
  /** journalctl -u <unit> --no-pager -o cat, over the system journal and the gateways' journal namespace. */
  journal(unit: string): Promise<string>;
  down(): Promise<void>;
  /** Reboots the host in place (same overlay, address, key) and waits for sshd. */
  reboot(): Promise<void>;
  /**
   * Lets the host's systemd enforce memory and task limits, as on a real machine: nspawn mounts the
   * v1 memory and pids hierarchies read-only, so `MemoryMax=` and `TasksMax=` would do nothing.
   * Safe only because the launcher put this host in cgroups of its own in those hierarchies.
   */
  enableResourceControls(): Promise<void>;
}

class BootedHost implements TestHost {
  readonly user = 'root' as const;
  readonly nodePath = HOST_PATHS.nodePath;
  readonly openclawPath = HOST_PATHS.openclawPath;
  readonly fixtureGatewayPath = HOST_PATHS.fixtureGatewayPath;
  private stopping: Promise<void> | undefined;

  constructor(
    private rec: HostRecord,
    private readonly target: SshTarget,
  ) {}

  get name() {
    return this.rec.name;
  }
  get address() {
    return this.target.address;
  }
  get port() {
    return this.target.port;
  }
  get identityFile() {
    return this.target.identityFile;
  }
  get knownHostsFile() {
    return this.target.knownHostsFile;
  }
  get sharedConnectionOptions() {
    return this.target.controlPath === undefined ? undefined : muxOptions(this.target);
  }

  async exec(argv: readonly string[], opts?: ExecOptions): Promise<ExecResult> {
    this.assertUp();
    return sshExec(this.target, argv, opts);
  }

  async run(argv: readonly string[], opts?: ExecOptions): Promise<string> {
    this.assertUp();
    return sshRun(this.target, argv, opts);
  }

  /** The gateway units log into the `openclaw-enterprise` namespace (libs/markers unit.ts), systemd's lines about them stay in the system journal. */
  journal(unit: string): Promise<string> {
    return this.run(['journalctl', '--namespace=+openclaw-enterprise', '-u', unit, '--no-pager', '-o', 'cat']);
  }

  async enableResourceControls(): Promise<void> {
    const controllers = resourceControllerDirs(this.rec.name);
    if (controllers.length < 2) throw new Error(`test host ${this.rec.name} has no cgroups of its own in the memory and pids hierarchies of this machine (found: ${controllers.join(', ') || 'none'})`);
    for (const hierarchy of ['memory', 'pids']) await this.run(['mount', '-o', 'remount,rw,bind', `/sys/fs/cgroup/${hierarchy}`]);
    // systemd learns which controllers it may use when it starts, so it starts again, in place.
    await this.run(['systemctl', 'daemon-reexec']);
  }

  down(): Promise<void> {
    this.stopping ??= (async () => {
      const started = Date.now();
      // Before the host goes: a master left to find its host gone would linger for its keepalives.
      await closeMaster(this.target);
      const cpuSeconds = await downHost(this.rec);
      untrack(this.rec.name);
      log(`${this.rec.name} down in ${Date.now() - started} ms${cpuSeconds === undefined ? '' : `; it used ${cpuSeconds.toFixed(1)} CPU-s`}`);
    })();
    return this.stopping;
  }

  /**
   * A real reboot from inside: systemd shuts everything down and nspawn exits (status 133), then
   * the same root, network namespace and cgroup are booted again, as a machine's firmware would.
   */
  async reboot(): Promise<void> {
    this.assertUp();
    const old = this.rec.nspawn;
    // The reboot ends the master's connection with sshd; the call goes on a connection of its own,
    // and the calls after the reboot start a new master.
    await closeMaster(this.target);
    const { controlPath: _shared, ...alone } = this.target;
    await sshExec(alone, ['systemctl', 'reboot'], { timeoutMs: 15_000 });
    if (old && !(await waitExit(old, 60_000))) await stopNspawn(this.rec.name, old);
    const leftovers = emptyHostCgroups(this.rec.name);
    if (leftovers.length) throw new Error(`cannot reuse cgroups of ${this.rec.name}: ${leftovers.join('; ')}`);
    await reapplyAddresses(this.rec.name, this.rec.index ?? 0);
    this.rec = { ...this.rec, nspawn: launchNspawn(this.rec.name, hostCgroupDirs(this.rec.name)) };
    writeHostRecord(this.rec);
    retrack(this.rec);
    await waitForSsh(this.target, () => isRunning(this.rec.name, this.rec.nspawn));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.down();
  }

  private assertUp(): void {
    if (this.stopping) throw new Error(`test host ${this.rec.name} is down`);
  }
}

/** Boots a host (building or unpacking the rootfs first if needed); it is torn down with the process at the latest. */
export async function startTestHost(opts: { name?: string; variant?: Variant; image?: ImageChoice } = {}): Promise<TestHost> {
  const { rec, target } = await bootHost(opts);
  return new BootedHost(rec, target);
}

/** For the CLI: boots a host that stays up after this process exits. */
export async function startPersistentHost(opts: Omit<BootOptions, 'persistent'>): Promise<{ rec: HostRecord; target: SshTarget }> {
  return bootHost({ ...opts, persistent: true });
}
