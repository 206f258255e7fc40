// One authenticated ssh2 connection to one host, shared by that host's calls, closed when idle.
import type { Duplex } from 'node:stream';
import type { Client, ClientChannel } from 'ssh2';
import type { HostTarget } from '../executor.js';
import type { SshClientSettings } from '@occ-ssh/ssh-client';
import { FileProblem, loadClientFiles, type ClientFiles } from './client-files.js';
import { connectConfig, type Ssh2Client } from './connect-config.js';
import { classify, type ConnectionFailure } from './failures.js';
import { openJump } from './jump.js';

/** How long a closed channel or connection may take to confirm before it is left behind. */
export const CLOSE_GRACE_MS = 3000;

export type Ssh2PoolEvent = { type: 'connecting'; key: string } | { type: 'ready'; key: string } | { type: 'failed'; key: string; reason: ConnectionFailure } | { type: 'closed'; key: string };

export interface ConnectionOptions {
  key: string;
  target: HostTarget;
  settings: SshClientSettings;
  /** A connection without channels is closed after this long. */
  idleMs: number;
  /** Told once, when the connection can take no more channels. */
  gone: (connection: PooledConnection) => void;
  emit: (event: Ssh2PoolEvent) => void;
}

export class PooledConnection {
  readonly client: Client;
  readonly ready: Promise<void>;
  readonly closed: Promise<void>;
  readonly key: string;
  alive = true;
  failure: ConnectionFailure | undefined;
  private channels = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private connectStarted = false;
  private markClosed: () => void = () => undefined;
  /** The bastion's connection when ssh.jumpHost is set; it lives and dies with this one. */
  private jump: Client | undefined;

  constructor(
    private readonly ClientClass: Ssh2Client,
    private readonly options: ConnectionOptions,
  ) {
    this.key = options.key;
    this.client = new ClientClass();
    this.closed = new Promise((resolve) => {
      this.markClosed = resolve;
    });
    this.ready = this.open();
    this.ready.catch(() => undefined);
  }

  private async open(): Promise<void> {
    const { settings, target } = this.options;
    this.options.emit({ type: 'connecting', key: this.key });
    let files: ClientFiles;
    try {
      files = await loadClientFiles(settings);
    } catch (error) {
      this.fail(error instanceof FileProblem ? error.reason : 'identity-file');
      this.end();
      throw error;
    }
    // Closed while the files were read: start nothing.
    if (!this.alive) throw new Error('connection closed');
    let sock: Duplex | undefined;
    if (settings.jumpHost) {
      sock = await openJump(this.ClientClass, settings, files, settings.jumpHost, target, {
        fail: (reason) => this.fail(reason),
        end: () => this.end(),
        adopt: (client) => {
          this.jump = client;
        },
      });
      if (!this.alive) throw new Error('connection closed');
    }
    const config = connectConfig(settings, files, target, () => this.fail('host-key'));
    if (!config) {
      // No trusted key names this host: the handshake could only end in refusal.
      this.fail('host-key');
      this.end();
      throw new Error('no known host key');
    }
    await new Promise<void>((resolve, reject) => {
      const { client } = this;
      client.on('ready', () => {
        this.options.emit({ type: 'ready', key: this.key });
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
        this.options.emit({ type: 'closed', key: this.key });
        reject(new Error('connection closed'));
      });
      try {
        client.connect(sock ? { ...config, sock } : config);
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
    this.options.emit({ type: 'failed', key: this.key, reason });
  }

  private dead(): void {
    if (!this.alive) return;
    this.alive = false;
    this.clearIdle();
    this.options.gone(this);
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private armIdle(): void {
    if (!this.alive || this.channels > 0) return;
    this.clearIdle();
    this.idleTimer = setTimeout(() => this.end(), this.options.idleMs);
    this.idleTimer.unref();
  }
}
