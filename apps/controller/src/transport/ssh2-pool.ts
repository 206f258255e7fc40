// Runs the helper over pooled ssh2 connections: one authenticated connection per host, a bounded
// number of exec channels on it. Strictness matches the system client's options (@occ-ssh/ssh-client ssh-argv.ts): the
// host key must be in the configured known_hosts file, only the configured identity authenticates
// (no agent, password or keyboard-interactive), nothing is forwarded, and the connect timeout and
// keepalive are the same. The pieces live in ./ssh2/: files, options, jump hop, connection, channel.
import { Semaphore } from '../limiter.js';
import type { CommandExecutor, ExecuteRequest, ExecuteResult, HostTarget } from './executor.js';
import { remoteCommand, type SshClientSettings } from '@occ-ssh/ssh-client';
import { CallControl, runChannel } from './ssh2/channel.js';
import { loadSsh2, type Ssh2Client } from './ssh2/connect-config.js';
import { PooledConnection, type Ssh2PoolEvent } from './ssh2/connection.js';
import { causeOfFailure } from './ssh2/failures.js';

export type { Ssh2PoolEvent } from './ssh2/connection.js';

/** OpenSSH's default MaxSessions: more channels than this on one connection are refused. */
const MAX_CHANNELS_PER_CONNECTION = 10;
/** Like ControlPersist=60: a connection with no channel for this long is closed. */
const DEFAULT_IDLE_MS = 60_000;

export interface Ssh2PoolOptions {
  /** Exec channels open at once on one host's connection: the limiter's sessions per host (its operations and runtime reads, at most 10). */
  maxChannelsPerHost: number;
  /** A connection without channels is closed after this long (default 60 s). */
  idleTimeoutMs?: number;
  /** Observes connection lifecycle, for metrics and tests. */
  onEvent?: (event: Ssh2PoolEvent) => void;
}

interface HostPool {
  readonly channels: Semaphore;
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
    const ClientClass = await loadSsh2();
    const control = new CallControl(request);
    try {
      return await this.run(ClientClass, request, control);
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

  private async run(ClientClass: Ssh2Client, request: ExecuteRequest, control: CallControl): Promise<ExecuteResult> {
    if (control.stoppedNow) return control.result();
    const pool = this.poolFor(request.host);
    const slot = pool.channels.acquire();
    if ((await control.race(slot.granted)) === 'stopped' || control.stoppedNow) {
      slot.cancel();
      return control.result();
    }
    // The slot is held until the channel it admits has closed, even if the call returns first.
    let handedOff = false;
    try {
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const connection = this.connectionFor(ClientClass, pool, request.host);
        const ready = await control.race(
          connection.ready.then(
            () => true,
            () => false,
          ),
        );
        // Nothing is started once the call has stopped, even if the connection became ready at the same moment.
        if (ready === 'stopped' || control.stoppedNow) return control.result();
        if (!ready) return control.result({ transportFailed: true, transportCause: causeOfFailure(connection.failure) });
        const opening = connection.exec(remoteCommand(request.call.argv));
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
        return await runChannel(channel, () => connection.alive, control);
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
      pool = { channels: new Semaphore(this.maxChannelsPerHost), connection: undefined };
      this.pools.set(key, pool);
    }
    return pool;
  }

  private connectionFor(ClientClass: Ssh2Client, pool: HostPool, host: HostTarget): PooledConnection {
    if (pool.connection?.alive) return pool.connection;
    this.opened += 1;
    const connection = new PooledConnection(ClientClass, {
      key: poolKey(host),
      target: host,
      settings: this.settings,
      idleMs: this.idleMs,
      gone: (gone) => {
        if (pool.connection === gone) pool.connection = undefined;
      },
      emit: (event) => this.options.onEvent?.(event),
    });
    pool.connection = connection;
    return connection;
  }
}

/** address:port:user; port and user never contain ':', so an IPv6 address keeps the key unambiguous. */
function poolKey(host: HostTarget): string {
  return `${host.address}:${host.port}:${host.user}`;
}
