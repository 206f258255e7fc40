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

/** Bounds concurrent operations per host, below sshd's default MaxStartups of 10. */
export class HostLimiter {
  private readonly hosts = new Map<string, Semaphore>();

  constructor(private readonly perHost: number) {}

  /** The semaphore of one host key (`user@address:port`), made on first use. */
  semaphoreFor(host: string): Semaphore {
    let semaphore = this.hosts.get(host);
    if (!semaphore) {
      semaphore = new Semaphore(this.perHost);
      this.hosts.set(host, semaphore);
    }
    return semaphore;
  }

  async run<T>(host: string, task: () => Promise<T>): Promise<T> {
    const ticket = this.semaphoreFor(host).acquire();
    // A free slot starts the task at once, as a caller that did not wait would expect.
    if (!ticket.immediate) await ticket.granted;
    try {
      return await task();
    } finally {
      ticket.release();
    }
  }
}
