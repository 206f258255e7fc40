// Reads journal entries with journalctl's JSON output, bounded in time and in bytes: a gateway that logs
// without end, or entries of any size, never makes the helper hold more than RAW_LIMIT of it.
import { ComputeError, MAX_LOG_BYTES, type LogEntry } from '@occ-ssh/protocol';
import { journalctlArgv } from '../run/commands.js';
import { SYSTEMD_ENV, type HostRunner } from '../run/system.js';

/** journalctl's raw output is cut here (an entry is at most a few KiB: journalctl shows longer fields as null). */
const RAW_LIMIT = 4 * 1024 * 1024;
const JOURNAL_TIMEOUT_MS = 15_000;

export interface JournalPage {
  entries: LogEntry[];
  cursor: string | null;
  truncated: boolean;
}

/** Runs journalctl with exactly `args` (no shell), killed on `signal`, on time-out or past RAW_LIMIT. */
export async function readJournal(runner: HostRunner, args: readonly string[], keep: 'newest' | 'oldest', signal: AbortSignal): Promise<JournalPage> {
  const { text, cut } = await runJournal(runner, args, signal, JOURNAL_TIMEOUT_MS);
  return parsePage(text, cut, keep);
}

/** journalctl's JSON output, one record a line; a line cut by the raw limit is dropped. Killed at `timeoutMs`, which then rejects. */
export async function journalRecords(runner: HostRunner, args: readonly string[], signal: AbortSignal, timeoutMs: number): Promise<{ records: Record<string, unknown>[]; cut: boolean }> {
  const { text, cut } = await runJournal(runner, args, signal, timeoutMs);
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (cut) lines.pop();
  return { records: lines.map((line) => JSON.parse(line) as Record<string, unknown>), cut };
}

function runJournal(runner: HostRunner, args: readonly string[], signal: AbortSignal, timeoutMs: number): Promise<{ text: string; cut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = runner.spawn(journalctlArgv(args), { env: SYSTEMD_ENV, stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let cut = false;
    let timedOut = false;
    const stop = () => child.kill('SIGKILL');
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    signal.addEventListener('abort', stop, { once: true });
    child.stdout!.on('data', (chunk: Buffer) => {
      if (cut) return;
      size += chunk.length;
      chunks.push(chunk);
      if (size > RAW_LIMIT) {
        cut = true;
        stop();
      }
    });
    child.on('error', () => finish(() => reject(new ComputeError('host-command', 'journalctl could not be run'))));
    child.on('close', (code) => {
      finish(() => {
        if (signal.aborted) return reject(signal.reason as Error);
        if (timedOut && !cut) return reject(new ComputeError('host-command', `journalctl did not finish within ${timeoutMs} ms`));
        if (!cut && code !== 0) return reject(new ComputeError('host-command', `journalctl failed with exit code ${code ?? 'signal'}`));
        resolve({ text: Buffer.concat(chunks).toString('utf8'), cut });
      });
    });
    function finish(then: () => void) {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
      then();
    }
  });
}

/**
 * One JSON object a line; a line cut by the raw limit is dropped. Past MAX_LOG_BYTES, `newest` keeps the
 * newest entries (a first look), `oldest` the oldest (following on from a cursor, so nothing is skipped).
 */
export function parsePage(text: string, cut: boolean, keep: 'newest' | 'oldest' = 'oldest'): JournalPage {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (cut) lines.pop();
  const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const order = keep === 'newest' ? [...parsed].reverse() : parsed;
  const kept: Record<string, unknown>[] = [];
  let bytes = 0;
  for (const entry of order) {
    bytes += Buffer.byteLength(messageOf(entry.MESSAGE) ?? '');
    if (bytes > MAX_LOG_BYTES) break;
    kept.push(entry);
  }
  if (keep === 'newest') kept.reverse();
  const entries = kept.map((entry) => ({ time: isoMicros(entry.__REALTIME_TIMESTAMP), pid: intOrNull(entry._PID), message: messageOf(entry.MESSAGE) }));
  const last = kept.at(-1)?.__CURSOR;
  return { entries, cursor: typeof last === 'string' ? last : null, truncated: cut || kept.length < parsed.length };
}

/** journalctl writes text that is not printable UTF-8 as an array of byte values. */
export function messageOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((byte) => Number.isInteger(byte) && byte >= 0 && byte < 256)) return Buffer.from(value as number[]).toString('utf8');
  return null;
}

export function intOrNull(value: unknown): number | null {
  const n = typeof value === 'string' ? Number(value) : NaN;
  return Number.isSafeInteger(n) ? n : null;
}

export function isoMicros(value: unknown): string {
  const micros = typeof value === 'string' && /^\d{1,20}$/.test(value) ? BigInt(value) : 0n;
  const date = new Date(Number(micros / 1000n)).toISOString();
  return `${date.slice(0, 19)}.${String(micros % 1000000n).padStart(6, '0')}Z`;
}
