// Runs the helper over pooled ssh2 connections: one authenticated connection per host, a bounded
// number of exec channels on it. Strictness matches the system client's options (ssh-args.ts): the
// host key must be in the configured known_hosts file, only the configured identity authenticates
// (no agent, password or keyboard-interactive), nothing is forwarded, and the connect timeout and
// keepalive are the same.
import { constants as fsConstants } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import type { Duplex } from 'node:stream';
import { ComputeError } from '@occ-ssh/protocol';
import type { Client, ClientChannel, ConnectConfig, ServerHostKeyAlgorithm } from 'ssh2';
import type { CommandExecutor, ExecuteRequest, ExecuteResult, HostTarget } from './executor.js';
import { socketErrorCause, type TransportCause } from './failure-cause.js';
import { hostKeyAccepted, knownHostKeyTypes, parseKnownHosts, type HostKeyType, type KnownHostEntry } from './known-hosts.js';
import type { JumpHostSettings, SshClientSettings } from './ssh-args.js';
import { MAX_STDOUT_BYTES } from './system-ssh.js';

/** How long a closed channel may take to confirm before the call returns without it. */
const CLOSE_GRACE_MS = 3000;
/** OpenSSH's default MaxSessions: more channels than this on one connection are refused. */
export const MAX_CHANNELS_PER_CONNECTION = 10;
/** ServerAliveInterval=15 and ServerAliveCountMax=3, as the system client uses. */
const KEEPALIVE_INTERVAL_MS = 15_000;
const KEEPALIVE_COUNT_MAX = 3;
/** Like ControlPersist=60: a connection with no channel for this long is closed. */
const DEFAULT_IDLE_MS = 60_000;

/** Host key algorithms offered for each trusted key type; SHA-1 `ssh-rsa` signatures are not offered, as in OpenSSH 8.8+. */
const HOST_KEY_ALGORITHMS: Record<HostKeyType, ServerHostKeyAlgorithm[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256'],
};

/** Why a connection could not be established or ended; never carries host output. */
export type ConnectionFailure = 'identity-file' | 'known-hosts-file' | 'host-key' | 'authentication' | 'timeout' | 'refused' | 'no-route' | 'dns' | 'connection-closed' | 'protocol';

/** The transport cause a connection failure reports; a missing connection closed under the call. */
export function causeOfFailure(failure: ConnectionFailure | undefined): TransportCause {
  switch (failure) {
    case 'identity-file':
    case 'authentication':
      return 'authentication';
    case 'known-hosts-file':
    case 'host-key':
      return 'host-key';
    case 'protocol':
      return 'unknown';
    case undefined:
      return 'connection-closed';
    default:
      return failure;
  }
}

export type Ssh2PoolEvent =
  | { type: 'connecting'; key: string }
  | { type: 'ready'; key: string }
  | { type: 'failed'; key: string; reason: ConnectionFailure }
  | { type: 'closed'; key: string };

export interface Ssh2PoolOptions {
  /** Exec channels open at once on one host's connection: the Installation's maxConcurrentOperationsPerHost (1..10). */
  maxChannelsPerHost: number;
  /** A connection without channels is closed after this long (default 60 s). */
  idleTimeoutMs?: number;
  /** Observes connection lifecycle, for metrics and tests. */
  onEvent?: (event: Ssh2PoolEvent) => void;
}

interface ClientFiles {
  privateKey: Buffer;
  knownHosts: KnownHostEntry[];
}

class FileProblem extends Error {
  constructor(readonly reason: ConnectionFailure) {
    super(reason);
  }
}

/**
 * Reads both files at connection time. Links are resolved first (Kubernetes mounts Secret files as
 * links into a `..data` directory); the final target is opened without following a symlink and
 * checked through that descriptor, so the checked file is the one read. The identity must be a
 * regular file only its owner can read, as preflight requires; known_hosts must be a regular file.
 */
async function loadClientFiles(settings: SshClientSettings): Promise<ClientFiles> {
  const privateKey = await readRegularFile(settings.identityFile, true);
  if (!privateKey) throw new FileProblem('identity-file');
  const knownHosts = await readRegularFile(settings.knownHostsFile, false);
  if (!knownHosts) throw new FileProblem('known-hosts-file');
  return { privateKey, knownHosts: parseKnownHosts(knownHosts.toString('utf8')) };
}

async function readRegularFile(path: string, ownerOnly: boolean): Promise<Buffer | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(await realpath(path), fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
    const stat = await handle.stat();
    if (!stat.isFile() || (ownerOnly && (stat.mode & 0o077) !== 0)) return undefined;
    return await handle.readFile();
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** A counting semaphore whose waiters can withdraw. */
class Slots {
  private active = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Resolves when a slot is held; `cancel` withdraws a waiter or returns a slot already granted. */
  acquire(): { granted: Promise<void>; cancel: () => void; release: () => void } {
    let held = false;
    let released = false;
    let grant: () => void = () => undefined;
    const granted = new Promise<void>((resolve) => {
      grant = () => {
        held = true;
        resolve();
      };
    });
    if (this.active < this.limit) {
      this.active += 1;
      grant();
    } else {
      this.waiters.push(grant);
    }
    const release = () => {
      if (!held || released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next();
      else this.active -= 1;
    };
    const cancel = () => {
      const index = this.waiters.indexOf(grant);
      if (index !== -1) this.waiters.splice(index, 1);
      else release();
    };
    return { granted, cancel, release };
  }
}

/** ssh2 is an optional dependency: loaded on the first call of this transport, never by the others. */
let ssh2Client: (new () => Client) | undefined;

async function loadSsh2(): Promise<new () => Client> {
  if (ssh2Client) return ssh2Client;
  try {
    const loaded = (await import('ssh2')) as { Client?: new () => Client; default?: { Client: new () => Client } };
    ssh2Client = loaded.Client ?? loaded.default!.Client;
    return ssh2Client;
  } catch (cause) {
    throw new ComputeError('configuration', 'drivers.compute.configuration.transport: ssh2 needs the optional dependency "ssh2" installed beside this package', { key: 'drivers.compute.configuration.transport' }, { cause });
  }
}

/** One authenticated connection to one host, shared by that host's calls. */
class PooledConnection {
  readonly client = new ssh2Client!();
  readonly ready: Promise<void>;
  readonly closed: Promise<void>;
  alive = true;
  failure: ConnectionFailure | undefined;
  private channels = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private connectStarted = false;
  private markClosed: () => void = () => undefined;
  /** The bastion's connection when ssh.jumpHost is set; it lives and dies with this one. */
  private jump: Client | undefined;

  constructor(
    readonly key: string,
    private readonly target: HostTarget,
    private readonly settings: SshClientSettings,
    private readonly idleMs: number,
    private readonly gone: (connection: PooledConnection) => void,
    private readonly emit: (event: Ssh2PoolEvent) => void,
  ) {
    this.closed = new Promise((resolve) => {
      this.markClosed = resolve;
    });
    this.ready = this.open();
    this.ready.catch(() => undefined);
  }

  private async open(): Promise<void> {
    this.emit({ type: 'connecting', key: this.key });
    let files: ClientFiles;
    try {
      files = await loadClientFiles(this.settings);
    } catch (error) {
      this.fail(error instanceof FileProblem ? error.reason : 'identity-file');
      this.end();
      throw error;
    }
    // Closed while the files were read: start nothing.
    if (!this.alive) throw new Error('connection closed');
    const { address, port, user } = this.target;
    let sock: Duplex | undefined;
    if (this.settings.jumpHost) {
      sock = await this.openJump(files, this.settings.jumpHost);
      if (!this.alive) throw new Error('connection closed');
    }
    const target = connectConfig(this.settings, files, { address, port, user }, () => this.fail('host-key'));
    if (!target) {
      // No trusted key names this host: the handshake could only end in refusal.
      this.fail('host-key');
      this.end();
      throw new Error('no known host key');
    }
    await new Promise<void>((resolve, reject) => {
      const { client } = this;
      client.on('ready', () => {
        this.emit({ type: 'ready', key: this.key });
        resolve();
      });
      client.on('error', (error: Error & { level?: string }) => {
        this.fail(classify(error));
        this.dead();
        reject(error);
      });
      client.on('close', () => {
        this.dead();
        this.markClosed();
        this.jump?.end();
        this.jump = undefined;
        this.emit({ type: 'closed', key: this.key });
        reject(new Error('connection closed'));
      });
      try {
        client.connect(sock ? { ...target, sock } : target);
        this.connectStarted = true;
        // Small request/response packets: Nagle plus delayed ACKs would add tens of milliseconds per call.
        if (!sock) client.setNoDelay(true);
      } catch (error) {
        // A malformed or passphrase-protected identity is refused before any packet is sent (BatchMode has no prompt).
        this.fail(/private ?key|passphrase/i.test(String((error as Error)?.message)) ? 'identity-file' : 'protocol');
        this.end();
        reject(error);
      }
    });
  }

  /**
   * Connects to the bastion with the same identity, known_hosts and strictness as any host, and
   * opens a direct-tcpip channel to the target through it; the target's SSH session runs inside.
   */
  private async openJump(files: ClientFiles, jump: JumpHostSettings): Promise<Duplex> {
    const config = connectConfig(this.settings, files, jump, () => this.fail('host-key'));
    const fail = (reason: ConnectionFailure, error: Error) => {
      this.fail(reason);
      this.end();
      return error;
    };
    if (!config) throw fail('host-key', new Error('no known host key for the jump host'));
    // ssh2 is loaded before any connection is made (loadSsh2 in run()).
    const client = new ssh2Client!();
    this.jump = client;
    await new Promise<void>((resolve, reject) => {
      client.once('ready', () => resolve());
      client.on('error', (error: Error & { level?: string; code?: string }) => reject(fail(classify(error), error)));
      client.once('close', () => {
        this.end();
        reject(new Error('jump host connection closed'));
      });
      try {
        client.connect(config);
      } catch (error) {
        reject(fail('identity-file', error as Error));
      }
    });
    return new Promise<Duplex>((resolve, reject) => {
      client.forwardOut('127.0.0.1', 0, this.target.address, this.target.port, (error, stream) => {
        if (error) reject(fail(forwardFailure(error), error));
        else resolve(stream);
      });
    });
  }

  /** Opens an exec channel; resolves undefined when the server or connection refuses it (no command ran). */
  exec(command: string): Promise<ClientChannel | undefined> {
    this.clearIdle();
    return new Promise<ClientChannel | undefined>((resolve) => {
      try {
        this.client.exec(command, (error, channel) => resolve(error ? undefined : channel));
      } catch {
        // "Not connected": the socket is gone even if its 'close' has not been seen yet.
        this.end();
        resolve(undefined);
      }
    }).then((channel) => {
      if (channel) {
        this.channels += 1;
        channel.once('close', () => {
          this.channels -= 1;
          this.armIdle();
        });
      } else {
        this.armIdle();
      }
      return channel;
    });
  }

  end(): void {
    this.dead();
    // A client that never started a connection has no socket to close, and emits no 'close'.
    if (this.connectStarted) this.client.end();
    else this.markClosed();
    const jump = this.jump;
    this.jump = undefined;
    jump?.end();
  }

  /** Closes the connection and waits for the socket to go (bounded). */
  async shutdown(): Promise<void> {
    this.end();
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), CLOSE_GRACE_MS).unref());
    if ((await Promise.race([this.closed.then(() => 'closed' as const), timer])) === 'timeout') this.client.destroy();
  }

  private fail(reason: ConnectionFailure): void {
    if (this.failure) return;
    this.failure = reason;
    this.emit({ type: 'failed', key: this.key, reason });
  }

  private dead(): void {
    if (!this.alive) return;
    this.alive = false;
    this.clearIdle();
    this.gone(this);
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private armIdle(): void {
    if (!this.alive || this.channels > 0) return;
    this.clearIdle();
    this.idleTimer = setTimeout(() => this.end(), this.idleMs);
    this.idleTimer.unref();
  }
}

/** The strict client options for one SSH server, or undefined when known_hosts names no key for it. */
function connectConfig(settings: SshClientSettings, files: ClientFiles, server: { address: string; port: number; user: string }, refused: () => void): ConnectConfig | undefined {
  const { address, port, user } = server;
  const algorithms = knownHostKeyTypes(files.knownHosts, address, port).flatMap((type) => HOST_KEY_ALGORITHMS[type]);
  if (algorithms.length === 0) return undefined;
  return {
    host: address,
    port,
    username: user,
    privateKey: files.privateKey,
    // Only publickey with the configured identity: no "none", agent, password or keyboard-interactive.
    authHandler: ['publickey'],
    tryKeyboard: false,
    agentForward: false,
    hostVerifier: (key: Buffer): boolean => {
      const accepted = hostKeyAccepted(files.knownHosts, address, port, key);
      if (!accepted) refused();
      return accepted;
    },
    algorithms: { serverHostKey: algorithms },
    readyTimeout: settings.connectTimeoutSeconds * 1000,
    keepaliveInterval: KEEPALIVE_INTERVAL_MS,
    keepaliveCountMax: KEEPALIVE_COUNT_MAX,
  };
}

/** Why the bastion could not open a channel to the target, from the reason it gave. */
function forwardFailure(error: Error): ConnectionFailure {
  const message = error.message;
  if (/refused/i.test(message)) return 'refused';
  if (/no route|unreachable/i.test(message)) return 'no-route';
  if (/timed out/i.test(message)) return 'timeout';
  if (/resolve|name or service/i.test(message)) return 'dns';
  return 'connection-closed';
}

function classify(error: Error & { level?: string; code?: string }): ConnectionFailure {
  switch (error.level) {
    case 'client-authentication':
      return 'authentication';
    case 'client-timeout':
      return 'timeout';
    case 'client-socket': {
      const cause = socketErrorCause(error.code);
      return cause === 'unknown' || cause === 'host-key' || cause === 'authentication' ? 'connection-closed' : cause;
    }
    default:
      return 'protocol';
  }
}

/** The timer and AbortSignal of one call. */
class CallControl {
  timedOut = false;
  aborted = false;
  stoppedNow = false;
  readonly stopped: Promise<'stopped'>;
  private stop: () => void = () => undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort = () => this.halt('aborted');

  constructor(readonly request: ExecuteRequest) {
    this.stopped = new Promise((resolve) => {
      this.stop = () => resolve('stopped');
    });
    this.timer = setTimeout(() => this.halt('timedOut'), request.timeoutMs);
    if (request.signal?.aborted) this.onAbort();
    request.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private halt(why: 'timedOut' | 'aborted'): void {
    if (this.stoppedNow) return;
    this.stoppedNow = true;
    this[why] = true;
    this.stop();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.request.signal?.removeEventListener('abort', this.onAbort);
  }

  /** Waits for `work` unless the call stops first. */
  race<T>(work: Promise<T>): Promise<T | 'stopped'> {
    return Promise.race([work, this.stopped]);
  }

  result(fields: Partial<ExecuteResult> = {}): ExecuteResult {
    return {
      exitCode: null,
      signal: null,
      stdout: '',
      stderrBytes: 0,
      stdoutTruncated: false,
      timedOut: this.timedOut,
      aborted: this.aborted,
      transportFailed: false,
      ...fields,
    };
  }
}

interface HostPool {
  readonly slots: Slots;
  connection: PooledConnection | undefined;
}

export class Ssh2PoolExecutor implements CommandExecutor {
  private readonly pools = new Map<string, HostPool>();
  /** Exec channels open at once on one host's connection. */
  readonly maxChannelsPerHost: number;
  private readonly idleMs: number;
  private opened = 0;

  constructor(
    private readonly settings: SshClientSettings,
    private readonly options: Ssh2PoolOptions,
  ) {
    const max = options.maxChannelsPerHost;
    if (!Number.isInteger(max) || max < 1 || max > MAX_CHANNELS_PER_CONNECTION) {
      throw new RangeError(`maxChannelsPerHost must be an integer from 1 to ${MAX_CHANNELS_PER_CONNECTION}`);
    }
    this.maxChannelsPerHost = max;
    this.idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_MS;
  }

  /** Connections this executor has started (successful or not), for tests and metrics. */
  get connectionsOpened(): number {
    return this.opened;
  }

  /** Connections currently pooled (connecting or ready). */
  get openConnections(): number {
    let count = 0;
    for (const pool of this.pools.values()) if (pool.connection?.alive) count += 1;
    return count;
  }

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    await loadSsh2();
    const control = new CallControl(request);
    try {
      return await this.run(request, control);
    } finally {
      control.dispose();
    }
  }

  /** Ends every pooled connection; in-flight calls on them end as transport failures. A later call connects again. */
  async close(): Promise<void> {
    const connections = [...this.pools.values()].flatMap((pool) => (pool.connection ? [pool.connection] : []));
    for (const pool of this.pools.values()) pool.connection = undefined;
    await Promise.all(connections.map((connection) => connection.shutdown()));
  }

  private async run(request: ExecuteRequest, control: CallControl): Promise<ExecuteResult> {
    if (control.stoppedNow) return control.result();
    const pool = this.poolFor(request.host);
    const slot = pool.slots.acquire();
    if ((await control.race(slot.granted)) === 'stopped' || control.stoppedNow) {
      slot.cancel();
      return control.result();
    }
    // The slot is held until the channel it admits has closed, even if the call returns first.
    let handedOff = false;
    try {
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const connection = this.connectionFor(pool, request.host);
        const ready = await control.race(connection.ready.then(() => true, () => false));
        // Nothing is started once the call has stopped, even if the connection became ready at the same moment.
        if (ready === 'stopped' || control.stoppedNow) return control.result();
        if (!ready) return control.result({ transportFailed: true, transportCause: causeOfFailure(connection.failure) });
        const opening = connection.exec(request.remoteCommand);
        const channel = await control.race(opening);
        if (channel === 'stopped') {
          handedOff = true;
          void opening.then((late) => {
            if (!late) return slot.release();
            late.once('close', slot.release);
            late.close();
          });
          return control.result();
        }
        if (!channel) {
          // A connection that died under us ran nothing: reconnect once. A live one refused the channel.
          if (!connection.alive && attempt === 0) continue;
          return control.result({ transportFailed: true, transportCause: connection.alive ? 'unknown' : causeOfFailure(connection.failure) });
        }
        handedOff = true;
        channel.once('close', slot.release);
        return await runChannel(connection, channel, request.stdin, control);
      }
      return control.result({ transportFailed: true, transportCause: causeOfFailure(undefined) });
    } finally {
      if (!handedOff) slot.release();
    }
  }

  private poolFor(host: HostTarget): HostPool {
    const key = poolKey(host);
    let pool = this.pools.get(key);
    if (!pool) {
      pool = { slots: new Slots(this.maxChannelsPerHost), connection: undefined };
      this.pools.set(key, pool);
    }
    return pool;
  }

  private connectionFor(pool: HostPool, host: HostTarget): PooledConnection {
    if (pool.connection?.alive) return pool.connection;
    this.opened += 1;
    const connection = new PooledConnection(
      poolKey(host),
      host,
      this.settings,
      this.idleMs,
      (gone) => {
        if (pool.connection === gone) pool.connection = undefined;
      },
      (event) => this.options.onEvent?.(event),
    );
    pool.connection = connection;
    return connection;
  }
}

/** address:port:user; port and user never contain ':', so an IPv6 address keeps the key unambiguous. */
function poolKey(host: HostTarget): string {
  return `${host.address}:${host.port}:${host.user}`;
}

/** Drives one exec channel: stdin written and closed, stdout bounded, stderr counted, stop closes the channel. */
function runChannel(connection: PooledConnection, channel: ClientChannel, stdin: Buffer, control: CallControl): Promise<ExecuteResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let truncated = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let sawExit = false;
    let settled = false;
    let grace: NodeJS.Timeout | undefined;

    const finish = () => {
      if (settled) return;
      settled = true;
      if (grace) clearTimeout(grace);
      // The connection went away before the command reported an exit: as ssh's own exit 255.
      const transportFailed = !sawExit && !control.stoppedNow && !connection.alive;
      resolve(
        control.result({
          exitCode,
          signal: exitSignal,
          stdout: Buffer.concat(chunks).toString('utf8'),
          stderrBytes,
          stdoutTruncated: truncated,
          transportFailed,
          ...(transportFailed ? { transportCause: 'connection-closed' as const } : {}),
        }),
      );
    };

    channel.on('data', (chunk: Buffer) => {
      control.request.onStdout?.(chunk);
      if (stdoutBytes + chunk.length > MAX_STDOUT_BYTES) {
        truncated = true;
        return;
      }
      stdoutBytes += chunk.length;
      chunks.push(chunk);
    });
    channel.stderr.on('data', (chunk: Buffer) => {
      stderrBytes += chunk.length;
    });
    channel.on('exit', (code: number | null, signal?: string) => {
      sawExit = true;
      if (typeof code === 'number') exitCode = code;
      else exitSignal = toSignal(signal);
    });
    channel.on('error', () => undefined);
    channel.stderr.on('error', () => undefined);
    channel.once('close', finish);
    void control.stopped.then(() => {
      if (settled) return;
      // Closing this channel leaves the connection and its other channels untouched.
      channel.close();
      grace = setTimeout(finish, CLOSE_GRACE_MS);
    });
    channel.end(stdin);
  });
}

function toSignal(name: string | undefined): NodeJS.Signals | null {
  if (!name) return null;
  return name in osConstants.signals ? (name as NodeJS.Signals) : null;
}
