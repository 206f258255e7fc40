// read-logs' follow: one journalctl --follow with read-logs' own selection, its entries written as
// log-entries lines while they come. Bounded in time (the caller's seconds, within the helper's
// deadline), in bytes written, and in the size of one journalctl line; ended with the session.
import { ComputeError, MAX_FOLLOW_BYTES, formatLine, type LogEntry } from '@occ-ssh/protocol';
import { diesWithHelperArgv, journalctlArgv } from '../run/commands.js';
import type { OpContext } from '../context/context.js';
import { intOrNull, isoMicros, messageOf } from '../systemd/journal.js';
import { SYSTEMD_ENV } from '../run/system.js';

/** journalctl prints a field over 4096 bytes as null (no --all), so a JSON line past this is not one of its entries. */
const MAX_RECORD_BYTES = 64 * 1024;
/** Left of the helper's deadline for the result line and the audit. */
const DEADLINE_MARGIN_MS = 10_000;

export type FollowEnd = 'time' | 'bytes' | 'journal';

export interface FollowRequest {
  /** journalctl's arguments as read-logs makes them (selection included); --follow is added here. */
  args: readonly string[];
  seconds: number;
  stream: string;
  /** What is already written for this follow (the first page), counted against MAX_FOLLOW_BYTES. */
  written: number;
}

/** Writes each chunk's entries as one log-entries line; resolves with why it ended, rejects with the session's reason. */
export function followJournal(ctx: OpContext, request: FollowRequest): Promise<{ ended: FollowEnd; cursor: string | null }> {
  const { session } = ctx;
  return new Promise((resolve, reject) => {
    // Security: setpriv's parent-death signal ends journalctl with the helper, whatever ends the helper.
    const child = ctx.runner.spawn(diesWithHelperArgv(journalctlArgv([...request.args, '--follow'])), { env: SYSTEMD_ENV, stdio: ['ignore', 'pipe', 'ignore'] });
    let written = request.written;
    let pending = '';
    let cursor: string | null = null;
    let ended: FollowEnd | undefined;
    const end = (why: FollowEnd) => {
      ended ??= why;
      child.kill('SIGKILL');
    };
    const bound = Math.min(request.seconds * 1000, Math.max(0, session.remainingMs() - DEADLINE_MARGIN_MS));
    const timer = setTimeout(() => end('time'), bound);
    const onAbort = () => child.kill('SIGKILL');
    session.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (chunk: Buffer) => {
      if (ended) return;
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = lines.pop() ?? '';
      if (Buffer.byteLength(pending) > MAX_RECORD_BYTES) return end('bytes');
      const entries: LogEntry[] = [];
      for (const line of lines) {
        const record = parsed(line);
        if (!record) continue;
        entries.push({ time: isoMicros(record.__REALTIME_TIMESTAMP), pid: intOrNull(record._PID), message: messageOf(record.MESSAGE) });
        if (typeof record.__CURSOR === 'string') cursor = record.__CURSOR;
      }
      if (entries.length === 0) return;
      const text = formatLine({ type: 'log-entries', stream: request.stream, entries });
      written += Buffer.byteLength(text);
      if (written > MAX_FOLLOW_BYTES) return end('bytes');
      session.send(text);
    });
    child.on('error', () => finish(() => reject(new ComputeError('host-command', 'journalctl could not be run'))));
    child.on('close', (code) =>
      finish(() => {
        if (session.signal.aborted) return reject(session.signal.reason as Error);
        if (ended) return resolve({ ended, cursor });
        if (code !== 0) return reject(new ComputeError('host-command', `journalctl --follow failed with exit code ${code ?? 'signal'}`));
        resolve({ ended: 'journal', cursor });
      }),
    );
    function finish(then: () => void) {
      clearTimeout(timer);
      session.signal.removeEventListener('abort', onAbort);
      then();
    }
  });
}

function parsed(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A page's entries as log-entries lines of at most `per` entries each; returns the bytes written. */
export function sendEntries(ctx: OpContext, stream: string, entries: readonly LogEntry[], per = 100): number {
  let written = 0;
  for (let i = 0; i < entries.length; i += per) {
    const text = formatLine({ type: 'log-entries', stream, entries: entries.slice(i, i + per) });
    written += Buffer.byteLength(text);
    ctx.session.send(text);
  }
  return written;
}
