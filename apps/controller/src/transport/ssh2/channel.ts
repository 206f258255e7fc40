// One call on an ssh2 connection: its timer and abort signal, and the exec channel it drives.
import { constants as osConstants } from 'node:os';
import type { ClientChannel } from 'ssh2';
import { BoundedOutput } from '@occ-ssh/ssh-client';
import { emptyResult, type ExecuteRequest, type ExecuteResult } from '../executor.js';
import { CLOSE_GRACE_MS } from './connection.js';

/** The timer and AbortSignal of one call. */
export class CallControl {
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
    return emptyResult({ timedOut: this.timedOut, aborted: this.aborted, transportFailed: false, ...fields });
  }
}

/**
 * Drives one exec channel: stdin written and closed, stdout bounded (read on past the bound, and
 * dropped), stderr counted, a stop closes the channel. `connectionAlive` tells a lost connection
 * from a command that ended.
 */
export function runChannel(channel: ClientChannel, connectionAlive: () => boolean, control: CallControl): Promise<ExecuteResult> {
  return new Promise((resolve) => {
    const output = new BoundedOutput(control.request.onStdout ? { onStdout: control.request.onStdout } : {});
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
      const transportFailed = !sawExit && !control.stoppedNow && !connectionAlive();
      const { stdout, stderrBytes, stdoutTruncated } = output.captured();
      resolve(
        control.result({
          exitCode,
          signal: exitSignal,
          stdout,
          stderrBytes,
          stdoutTruncated,
          transportFailed,
          ...(transportFailed ? { transportCause: 'connection-closed' as const } : {}),
        }),
      );
    };

    channel.on('data', output.stdout);
    channel.stderr.on('data', output.stderr);
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
    channel.end(control.request.call.stdin);
  });
}

function toSignal(name: string | undefined): NodeJS.Signals | null {
  if (!name) return null;
  return name in osConstants.signals ? (name as NodeJS.Signals) : null;
}
