// Runs the helper through the system `ssh` client with OpenSSH connection multiplexing: the first
// call to a host starts a master connection that later calls reuse. The client argv is the strict
// one from system-ssh.ts plus ControlMaster/ControlPath/ControlPersist; spawning, timeouts, abort and
// output handling are SystemSshCommandExecutor's own.
import { lstat, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyResult, type CommandExecutor, type ExecuteRequest, type ExecuteResult, type HostTarget } from './executor.js';
import { sshStderrCause, type TransportCause } from './failure-cause.js';
import { JUMP_ALIAS, collect, multiplexOptions, sshEnv, type SshClientSettings } from '@occ-ssh/ssh-client';
import { SystemSshCommandExecutor } from './system-ssh.js';

/** How long an idle master connection stays up after its last session. */
const DEFAULT_CONTROL_PERSIST_SECONDS = 60;
/** `-O exit` talks to a local socket; it never needs long. */
const EXIT_TIMEOUT_MS = 10_000;
/**
 * %C expands to 40 hex characters, and ssh binds the master at `<ControlPath>.<16 random>` before
 * renaming it: the whole path must fit sun_path (108 bytes with its NUL on Linux).
 */
const MAX_CONTROL_DIRECTORY_LENGTH = 107 - 1 - 40 - 17;

export interface OpenSshMuxOptions {
  /** ControlPersist in seconds (default 60). */
  controlPersistSeconds?: number;
  /** Where the private control directory is created (default os.tmpdir()). */
  baseDirectory?: string;
}

/** Security: the control directory must be a real directory owned by this user and closed to everyone else. */
export async function checkPrivateDirectory(path: string): Promise<string | undefined> {
  const stat = await lstat(path).catch(() => undefined);
  if (!stat) return 'does not exist';
  if (!stat.isDirectory()) return 'is not a directory';
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return `is owned by uid ${stat.uid}, not ${uid}`;
  if ((stat.mode & 0o777) !== 0o700) return `has mode ${(stat.mode & 0o777).toString(8)}, not 700`;
  return undefined;
}

export class OpenSshMuxExecutor implements CommandExecutor {
  private directory: Promise<string> | undefined;
  private inner: SystemSshCommandExecutor | undefined;
  private readonly hosts = new Map<string, HostTarget>();
  private readonly persistSeconds: number;
  private readonly baseDirectory: string;

  constructor(
    private readonly settings: SshClientSettings,
    private readonly sshPath = 'ssh',
    options: OpenSshMuxOptions = {},
  ) {
    this.persistSeconds = options.controlPersistSeconds ?? DEFAULT_CONTROL_PERSIST_SECONDS;
    if (!Number.isInteger(this.persistSeconds) || this.persistSeconds < 1) throw new RangeError('controlPersistSeconds must be a positive integer');
    this.baseDirectory = options.baseDirectory ?? tmpdir();
  }

  /** The private control directory, once the first call has created it. */
  async controlDirectory(): Promise<string | undefined> {
    return this.directory?.catch(() => undefined);
  }

  /** The options that add multiplexing to the strict client options. */
  static multiplexOptions(directory: string, persistSeconds = DEFAULT_CONTROL_PERSIST_SECONDS): string[] {
    return multiplexOptions(`${directory}/%C`, persistSeconds);
  }

  /** The exact argv for a call: system-ssh.ts's argv with the multiplexing options. */
  async argv(request: Pick<ExecuteRequest, 'host' | 'call'>): Promise<string[]> {
    return (await this.client()).argv(request);
  }

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    let client: SystemSshCommandExecutor;
    try {
      client = await this.client();
    } catch {
      // No private control directory: refuse to run rather than share a socket path.
      return emptyResult({ timedOut: false, aborted: Boolean(request.signal?.aborted), transportFailed: true, transportCause: 'unknown' });
    }
    this.hosts.set(hostKey(request.host), request.host);
    const result = await client.execute(request);
    if (!result.transportFailed || !this.settings.jumpHost || !(result.transportCause === 'connection-closed' || result.transportCause === 'unknown')) return result;
    // A master started with ControlPersist sends its ProxyJump hop's stderr to /dev/null: ask the
    // hop itself why it failed, and keep the first answer when the hop is fine.
    const hop = await jumpHopCause(this.sshPath, client.configArgs(), this.settings, request.host);
    return hop === 'unknown' || hop === 'connection-closed' ? result : { ...result, transportCause: hop };
  }

  /** Asks every master this executor may have started to exit, then removes the control directory. */
  async close(): Promise<void> {
    const pending = this.directory;
    const hosts = [...this.hosts.values()];
    const inner = this.inner;
    this.directory = undefined;
    this.inner = undefined;
    this.hosts.clear();
    if (!pending) return;
    const directory = await pending.catch(() => undefined);
    if (!directory) return;
    // The same -F/-J and options as the calls: a master is found by ControlPath, whose %C covers the jump host.
    if (inner) await Promise.all(hosts.map((host) => runQuietly(this.sshPath, inner.controlArgv(host, ['-O', 'exit']))));
    await inner?.close();
    await rm(directory, { recursive: true, force: true });
  }

  /** Creates the control directory once, and re-checks it before every call. */
  private async client(): Promise<SystemSshCommandExecutor> {
    this.directory ??= this.createDirectory();
    const directory = await this.directory;
    const problem = await checkPrivateDirectory(directory);
    if (problem) throw new Error(`control directory ${directory} ${problem}`);
    this.inner ??= new SystemSshCommandExecutor(this.settings, this.sshPath, OpenSshMuxExecutor.multiplexOptions(directory, this.persistSeconds));
    return this.inner;
  }

  private async createDirectory(): Promise<string> {
    // mkdtemp creates the directory with mode 0700, owned by this process's user.
    const directory = await mkdtemp(join(this.baseDirectory, 'occ-ssh-mux-'));
    if (directory.length > MAX_CONTROL_DIRECTORY_LENGTH) {
      await rm(directory, { recursive: true, force: true });
      throw new Error(`control directory ${directory} is too long for a socket path`);
    }
    const problem = await checkPrivateDirectory(directory);
    if (problem) throw new Error(`control directory ${directory} ${problem}`);
    return directory;
  }
}

function hostKey(host: HostTarget): string {
  return `${host.address}:${host.port}:${host.user}`;
}

/** Runs only the jump hop (`-W` to the target, stdin closed) and reads the cause from its stderr. */
async function jumpHopCause(sshPath: string, config: string[], settings: SshClientSettings, host: HostTarget): Promise<TransportCause> {
  const file = config.slice(0, 2);
  const run = await collect(sshPath, [...file, '-W', `[${host.address}]:${host.port}`, JUMP_ALIAS], {
    timeoutMs: (settings.connectTimeoutSeconds + 5) * 1000,
    killGraceMs: 0,
    env: sshEnv(),
  });
  return sshStderrCause(run.stderrHead);
}

/** Runs a short ssh control command with the same minimal environment as the executor; output is discarded. */
async function runQuietly(command: string, args: string[]): Promise<void> {
  await collect(command, args, { timeoutMs: EXIT_TIMEOUT_MS, killGraceMs: 0, env: sshEnv() });
}
