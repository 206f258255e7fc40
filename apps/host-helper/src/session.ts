// The helper's link to its caller: heartbeats, closed-session detection and its own deadline.
import { ComputeError, formatLine } from '@occ-ssh/protocol';

/** Below the controller's 180-second transport bound, so the helper always stops first. */
export const HELPER_DEADLINE_MS = 170_000;
const HEARTBEAT_MS = 1000;

export class Session {
  readonly startedAt = Date.now();
  private closed = false;
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: NodeJS.WritableStream = process.stdout,
    readonly deadlineMs = HELPER_DEADLINE_MS,
  ) {
    out.on('error', () => {
      this.closed = true;
    });
  }

  start(): void {
    this.timer = setInterval(() => this.heartbeat(), HEARTBEAT_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** A write to a closed ssh session fails; from then on nothing more may change on the host. */
  heartbeat(): void {
    if (this.closed) return;
    try {
      this.out.write(formatLine({ type: 'heartbeat', seq: this.seq++ }), (error) => {
        if (error) this.closed = true;
      });
    } catch {
      this.closed = true;
    }
  }

  remainingMs(): number {
    return this.deadlineMs - (Date.now() - this.startedAt);
  }

  /** Called before every host mutation: refuses to go on once the caller is gone or time is up. */
  checkpoint(): void {
    if (this.closed) throw new ComputeError('cancelled', 'the controller session closed; stopped before the next change');
    if (this.remainingMs() <= 0) throw new ComputeError('timeout', `helper deadline of ${this.deadlineMs} ms reached`);
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
