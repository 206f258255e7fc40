// What the CLI prints: each step with its elapsed time as it happens (ticking on a terminal) and a
// per-host recap on stderr, the command's results on stdout, or one JSON result.
import { toComputeError } from '@occ-ssh/protocol';

export interface StepRecord {
  step: string;
  ms: number;
  ok: boolean;
  detail?: string;
  code?: string;
}

export type HostState = 'ok' | 'failed' | 'unreachable';

export interface HostRecap {
  host: string;
  state: HostState;
  detail?: string;
}

const TICK_MS = 1000;

export class Reporter {
  readonly steps: StepRecord[] = [];
  readonly hosts: HostRecap[] = [];
  private readonly started = Date.now();
  /** When the helper last said it was alive, and how often: shown on the ticking step line. */
  private heartbeat: { at: number; count: number } | undefined;

  constructor(
    private readonly json: boolean,
    /** The results (`line`). */
    private readonly out: NodeJS.WritableStream = process.stdout,
    /** Progress: steps, notes and the recap, so a pipe or a file gets only the results. */
    private readonly err: NodeJS.WritableStream = process.stderr,
    /** A terminal gets a ticking elapsed time on long steps; a pipe gets one line per step. */
    private readonly tty = false,
  ) {}

  async step<T>(name: string, action: () => Promise<T>, describe?: (value: T) => string | undefined): Promise<T> {
    const started = Date.now();
    const prefix = `  ${name} ... `;
    if (!this.json) this.err.write(prefix);
    this.heartbeat = undefined;
    const ticker = this.tty && !this.json ? setInterval(() => this.err.write(`\r\x1b[K${prefix}${seconds(Date.now() - started)}${this.liveness()}`), TICK_MS) : undefined;
    const end = (text: string) => {
      if (ticker) clearInterval(ticker);
      if (!this.json) this.err.write(`${ticker ? `\r\x1b[K${prefix}` : ''}${text}\n`);
    };
    try {
      const value = await action();
      const record: StepRecord = { step: name, ms: Date.now() - started, ok: true };
      const detail = describe?.(value);
      if (detail) record.detail = detail;
      this.steps.push(record);
      end(`ok (${seconds(record.ms)})${detail ? `  ${detail}` : ''}`);
      return value;
    } catch (error) {
      const failure = toComputeError(error);
      const record: StepRecord = { step: name, ms: Date.now() - started, ok: false, code: failure.code };
      this.steps.push(record);
      end(`failed: ${failure.failure} ${failure.code}${failure.details.transportCause ? ` (${failure.details.transportCause})` : ''} (${seconds(record.ms)})`);
      throw error;
    }
  }

  /** A helper heartbeat arrived (the driver's onHelperProgress). */
  helperAlive(count: number): void {
    this.heartbeat = { at: Date.now(), count };
  }

  private liveness(): string {
    if (!this.heartbeat) return '';
    const quiet = Date.now() - this.heartbeat.at;
    return quiet > 3 * TICK_MS ? `, no heartbeat from the host for ${seconds(quiet)}` : `, host working (${this.heartbeat.count} heartbeats)`;
  }

  /** Records how one host fared; `recap` prints them all at the end. */
  host(host: string, state: HostState, detail?: string): void {
    this.hosts.push({ host, state, ...(detail ? { detail } : {}) });
  }

  recap(): void {
    if (this.json || this.hosts.length === 0) return;
    const width = Math.max(...this.hosts.map((h) => h.host.length));
    const count = (state: HostState) => this.hosts.filter((h) => h.state === state).length;
    this.err.write(`recap: ${count('ok')} ok, ${count('failed')} failed, ${count('unreachable')} unreachable\n`);
    for (const h of this.hosts) this.err.write(`  ${h.host.padEnd(width)} : ${h.state}${h.detail ? `  ${h.detail}` : ''}\n`);
  }

  /** A line of the command's result, on stdout (--json carries the result instead). */
  line(text: string): void {
    if (!this.json) this.out.write(`${text}\n`);
  }

  /** A line about the run, on stderr: what is being done, a warning, how it ended. */
  note(text: string): void {
    if (!this.json) this.err.write(`${text}\n`);
  }

  totalMs(): number {
    return Date.now() - this.started;
  }
}

export function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}
