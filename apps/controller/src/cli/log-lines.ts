// Where the CLI's pino logger writes: JSON lines for pipes and files, readable lines on a terminal.
import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { neutralise, printableJson, printableJsonText } from './journal-text.js';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'v']);

/**
 * One pino JSON line as `HH:MM:SS.mmm LEVEL message key=value ...`; other text passes through. Either way
 * a message or field that carries a host's or gateway's text shows its controls and bidi characters escaped.
 */
export function readableLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return neutralise(json);
  }
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
  const level = LEVELS[Number(record.level)] ?? String(record.level);
  const fields = Object.entries(record)
    .filter(([key]) => !OMITTED.has(key))
    .map(([key, value]) => `${neutralise(key)}=${typeof value === 'string' ? neutralise(value) : printableJson(value)}`);
  return [time, level.padEnd(5), neutralise(String(record.msg ?? '')), ...fields].filter(Boolean).join(' ');
}

/** Readable lines on a terminal; elsewhere the JSON lines, with C1, bidi and zero-width characters \u-escaped. */
export function logDestination(err: NodeJS.WritableStream & { isTTY?: boolean }): Writable {
  let pending = '';
  // A character split between two chunks is decoded whole.
  const decoder = new StringDecoder('utf8');
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!err.isTTY) {
        err.write(printableJsonText(decoder.write(chunk)));
        return done();
      }
      pending += decoder.write(chunk);
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      // A step line may be half written on the terminal: clear it; the step's ticker writes it again.
      for (const line of lines) if (line) err.write(`\r\x1b[K${readableLine(line)}\n`);
      done();
    },
  });
}
