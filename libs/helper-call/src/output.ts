// The helper's stdout: heartbeat lines while it works (one per change it begins, one a second while
// it waits), then exactly one final result line. Read here for the controller and every tool alike.
import { MAX_FOLLOW_BYTES, findResultLine, heartbeatLine, logEntriesLine, type LogEntriesLine, type ResultLine } from '@occ-ssh/protocol';

export interface HelperOutput {
  /** The final result line; undefined when the last non-blank line is not one (see findResultLine). */
  line: ResultLine | undefined;
  /** The sequence number of each heartbeat line, in the order printed. */
  heartbeats: number[];
}

export function readHelperOutput(stdout: string): HelperOutput {
  const heartbeats: number[] = [];
  for (const line of stdout.split('\n')) {
    const seq = heartbeatSeq(line);
    if (seq !== undefined) heartbeats.push(seq);
  }
  return { line: findResultLine(stdout), heartbeats };
}

/** Reads heartbeat lines out of stdout chunks as they arrive; a chunk may hold part of a line. */
export function heartbeatReader(onHeartbeat: (seq: number) => void): (chunk: Uint8Array) => void {
  let pending = '';
  return (chunk) => {
    pending += Buffer.from(chunk).toString('utf8');
    const lines = pending.split('\n');
    pending = (lines.pop() ?? '').slice(-4096);
    for (const line of lines) {
      const seq = heartbeatSeq(line);
      if (seq !== undefined) onHeartbeat(seq);
    }
  };
}

/** Reads a read-logs follow's log-entries lines out of stdout chunks as they arrive; a longer line than a follow may write is dropped. */
export function logEntriesReader(onLine: (line: LogEntriesLine) => void): (chunk: Uint8Array) => void {
  let pending = '';
  return (chunk) => {
    pending += Buffer.from(chunk).toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    if (pending.length > MAX_FOLLOW_BYTES) pending = '';
    for (const line of lines) {
      if (!line.startsWith('{"type":"log-entries"')) continue;
      const parsed = logEntriesLine.safeParse(safeJson(line));
      if (parsed.success) onLine(parsed.data);
    }
  };
}

function heartbeatSeq(line: string): number | undefined {
  if (!line.startsWith('{"type":"heartbeat"')) return undefined;
  const parsed = heartbeatLine.safeParse(safeJson(line));
  return parsed.success ? parsed.data.seq : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
