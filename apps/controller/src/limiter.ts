// The one limiter: a FIFO counting semaphore whose waiters can withdraw, a map of them per host, and
// the controller-wide bound over all hosts.
import { ComputeError } from '@occ-ssh/protocol';

export interface SemaphoreTicket {
  /** Resolves once the slot is held. */
  granted: Promise<void>;
  /** Held from the start: no slot was waited for. */
  immediate: boolean;
  /** Withdraws a waiting ticket, or releases a slot already granted. */
  cancel: () => void;
  /** Hands the slot to the next waiter (no newcomer can overtake it); a second call does nothing. */
  release: () => void;
}

export class Semaphore {
  private active = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  acquire(): SemaphoreTicket {
    let held = false;
    let released = false;
    let grant: () => void = () => undefined;
    const granted = new Promise<void>((resolve) => {
      grant = () => {
        held = true;
        resolve();
      };
    });
    const immediate = this.active < this.limit;
    if (immediate) {
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
    return { granted, immediate, cancel, release };
  }
}

/** OpenSSH's default MaxSessions: the most sessions one multiplexed connection may carry at once. */
const SESSIONS_PER_CONNECTION = 10;
/** Slots of their own for OCC's runtime reads, beside the host's operations. */
const VIEW_SLOTS = 2;

/** Which slots a helper call takes: `view` for OCC's runtime reads, `operation` for everything else. */
export type Lane = 'operation' | 'view';

/** The runtime reads' own slots for a per-host bound: two, within sshd's 10 sessions per connection. */
export const viewSlotsFor = (perHost: number) => Math.max(0, Math.min(VIEW_SLOTS, SESSIONS_PER_CONNECTION - perHost));

/** Sessions one host's connection may need at once: its operations and its runtime reads. */
export const sessionsPerHost = (perHost: number) => perHost + viewSlotsFor(perHost);

/** The runtime reads' share of the controller-wide bound: a quarter of the operations', at least two. */
export const viewTotalFor = (total: number) => Math.max(VIEW_SLOTS, Math.ceil(total / 4));

/**
 * Bounds concurrent operations per host, below sshd's default MaxStartups of 10, and across every host
 * the controller addresses (each one an `ssh` client with the system transports). OCC's runtime reads
 * (describe, logs, diagnostics) have slots of their own, per host and in the whole, so activations
 * waiting for slow gateways never hold them up; with no room left under MaxSessions they share the
 * operations' slots.
 *
 * Fairness: a call takes its host's slot first and only then queues for the controller-wide one, so
 * one host holds or awaits at most its own per-host number of those; a burst on one host cannot crowd
 * out the others, which are served in the order they asked.
 */
export class HostLimiter {
  private readonly hosts = new Map<string, Semaphore>();
  private readonly viewSlots: number;
  private readonly totals: Record<Lane, Semaphore>;

  constructor(
    private readonly perHost: number,
    total = Number.POSITIVE_INFINITY,
  ) {
    this.viewSlots = viewSlotsFor(perHost);
    const operations = new Semaphore(total);
    this.totals = { operation: operations, view: this.viewSlots > 0 ? new Semaphore(viewTotalFor(total)) : operations };
  }

  /** The semaphore of one host key (`user@address:port`) and lane, made on first use. */
  semaphoreFor(host: string, lane: Lane = 'operation'): Semaphore {
    const own = lane === 'view' && this.viewSlots > 0;
    const key = own ? `${host} view` : host;
    let semaphore = this.hosts.get(key);
    if (!semaphore) {
      semaphore = new Semaphore(own ? this.viewSlots : this.perHost);
      this.hosts.set(key, semaphore);
    }
    return semaphore;
  }

  /**
   * Waits for a slot of the host's lane, then for one of the controller's, and returns their release:
   * a step of one helper invocation. `signal` withdraws a waiting call (`cancelled`, nothing held).
   */
  async take(host: string, lane: Lane = 'operation', signal?: AbortSignal): Promise<() => void> {
    const own = this.semaphoreFor(host, lane).acquire();
    await grantedUnless(own, signal);
    const total = this.totals[lane].acquire();
    try {
      await grantedUnless(total, signal);
    } catch (error) {
      own.release();
      throw error;
    }
    return () => {
      total.release();
      own.release();
    };
  }

  async run<T>(host: string, task: () => Promise<T>, lane: Lane = 'operation'): Promise<T> {
    const release = await this.take(host, lane);
    try {
      return await task();
    } finally {
      release();
    }
  }
}

/** A ticket's slot, or `cancelled` once `signal` aborts while it waits (the ticket withdrawn). */
async function grantedUnless(ticket: SemaphoreTicket, signal: AbortSignal | undefined): Promise<void> {
  if (ticket.immediate) return;
  if (!signal) return ticket.granted;
  if (signal.aborted) {
    ticket.cancel();
    throw new ComputeError('cancelled', 'cancelled while waiting for a slot of the controller');
  }
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      ticket.cancel();
      reject(new ComputeError('cancelled', 'cancelled while waiting for a slot of the controller'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([ticket.granted, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
