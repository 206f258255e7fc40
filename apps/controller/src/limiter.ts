// The one limiter: a FIFO counting semaphore whose waiters can withdraw, and a map of them per host.

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

/**
 * Bounds concurrent operations per host, below sshd's default MaxStartups of 10. OCC's runtime reads
 * (describe, logs, diagnostics) have slots of their own, so activations waiting for slow gateways never
 * hold them up; with no room left under MaxSessions they share the operations' slots.
 */
export class HostLimiter {
  private readonly hosts = new Map<string, Semaphore>();
  private readonly viewSlots: number;

  constructor(private readonly perHost: number) {
    this.viewSlots = viewSlotsFor(perHost);
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

  /** Waits for a slot of the host's lane and returns its release: a step of one helper invocation. */
  async take(host: string, lane: Lane = 'operation'): Promise<() => void> {
    const ticket = this.semaphoreFor(host, lane).acquire();
    await ticket.granted;
    return ticket.release;
  }

  async run<T>(host: string, task: () => Promise<T>, lane: Lane = 'operation'): Promise<T> {
    const ticket = this.semaphoreFor(host, lane).acquire();
    // A free slot starts the task at once, as a caller that did not wait would expect.
    if (!ticket.immediate) await ticket.granted;
    try {
      return await task();
    } finally {
      ticket.release();
    }
  }
}
