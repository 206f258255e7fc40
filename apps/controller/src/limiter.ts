// Bounds concurrent operations per host, below sshd's default MaxStartups of 10.
export class HostLimiter {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly perHost: number) {}

  async run<T>(host: string, task: () => Promise<T>): Promise<T> {
    if ((this.active.get(host) ?? 0) >= this.perHost) {
      await new Promise<void>((resolve) => this.waiting.set(host, [...(this.waiting.get(host) ?? []), resolve]));
    } else {
      this.active.set(host, (this.active.get(host) ?? 0) + 1);
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.get(host)?.shift();
      if (next) next();
      else this.active.set(host, (this.active.get(host) ?? 1) - 1);
    }
  }
}
