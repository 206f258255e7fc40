// The helper's link to its caller: heartbeats, closed-session detection and its own deadline.
import { writeSync } from 'node:fs';
import { ComputeError, formatLine } from '@occ-ssh/protocol';

/** Below the controller's 180-second transport bound, so the helper always stops first. */
export const HELPER_DEADLINE_MS = 170_000;
const HEARTBEAT_MS = 1000;
/** What a write to a session whose other end is gone fails with. */
const CLOSED_CODES = new Set(['EPIPE', 'ECONNRESET', 'ENOTCONN', 'EBADF']);

export class Session {
  readonly startedAt = Date.now();
  private closed = false;
  private seq = 0;
  private changesBegun = 0;
  private timer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly out: NodeJS.WritableStream = process.stdout,
    readonly deadlineMs = HELPER_DEADLINE_MS,
    /** The descriptor behind `out`, written synchronously at each checkpoint to see a closed session at once. */
    private readonly probeFd: number | undefined = out === process.stdout ? 1 : undefined,
  ) {
    out.on('error', () => this.markClosed());
  }

  /**
   * Aborted once the caller is gone or the deadline passes, with the ComputeError to report as its
   * reason: every wait (the lock, readiness) listens to it, so neither holds the helper past either.
   */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  start(): void {
    this.timer = setInterval(() => this.heartbeat(), HEARTBEAT_MS);
    // A timer, not only the checkpoints: a wait between two checkpoints must end at the deadline too.
    this.deadlineTimer = setTimeout(() => this.stopWith(this.deadlineError()), Math.max(0, this.remainingMs()));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
  }

  /** A write to a closed ssh session fails; from then on nothing more may change on the host. */
  heartbeat(): void {
    if (this.closed) return;
    try {
      this.out.write(formatLine({ type: 'heartbeat', seq: this.seq++ }), (error) => {
        if (error) this.markClosed();
      });
    } catch {
      this.markClosed();
    }
  }

  /** One whole line of output besides the heartbeats (a follow's entries); dropped once the session is closed. */
  send(line: string): void {
    if (this.closed) return;
    try {
      this.out.write(line, (error) => {
        if (error) this.markClosed();
      });
    } catch {
      this.markClosed();
    }
  }

  remainingMs(): number {
    return this.deadlineMs - (Date.now() - this.startedAt);
  }

  /**
   * Called before every host mutation: refuses to go on once the caller is gone or time is up. A
   * heartbeat written here, synchronously, fails the moment sshd has closed the session, so a
   * killed client stops the helper before its next change rather than at the next timer beat.
   * The lines also let a caller follow the helper's progress step by step.
   */
  checkpoint(): void {
    this.probe();
    if (this.closed) throw this.closedError();
    if (this.remainingMs() <= 0) throw this.deadlineError();
  }

  private probe(): void {
    // Only when nothing of the stream is still queued: a line must never land inside another.
    if (this.closed || this.probeFd === undefined || (this.out as { writableLength?: number }).writableLength) return;
    try {
      writeSync(this.probeFd, formatLine({ type: 'heartbeat', seq: this.seq++ }));
    } catch (error) {
      // EAGAIN (a full pipe) means a slow reader, not a gone one: the timer's beat judges that.
      if (CLOSED_CODES.has((error as NodeJS.ErrnoException).code ?? '')) this.markClosed();
    }
  }

  /** The checkpoint before one single change to the host, counted (the audit line reports the count). */
  beforeChange(): void {
    this.checkpoint();
    this.changesBegun += 1;
  }

  /** The digest of each step list handed to `apply`, in order (the audit line's `plan=`; see plan/render.ts). */
  readonly plans: string[] = [];

  /** How many changes this operation began: with a `cancelled` outcome, where it was stopped. */
  get changes(): number {
    return this.changesBegun;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private markClosed(): void {
    this.closed = true;
    this.stopWith(this.closedError());
  }

  private stopWith(reason: ComputeError): void {
    if (!this.abort.signal.aborted) this.abort.abort(reason);
  }

  private closedError(): ComputeError {
    return new ComputeError('cancelled', 'the controller session closed; stopped before the next change');
  }

  private deadlineError(): ComputeError {
    return new ComputeError('timeout', `helper deadline of ${this.deadlineMs} ms reached`);
  }
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it is aborted. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
