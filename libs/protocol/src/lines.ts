// The helper's stdout: heartbeat lines while it works (and a follow's log-entries lines), then exactly
// one final result line.
import * as z from 'zod/mini';
import { ERROR_CODES } from './errors.js';
import { FOLLOW_STREAM, OPERATION_NAMES, logEntry } from './operations/index.js';

export const heartbeatLine = z.strictObject({ type: z.literal('heartbeat'), seq: z.int().check(z.minimum(0)) });

/** New journal entries of a read-logs follow, as they come; `stream` is the one the follow's arguments named. */
export const logEntriesLine = z.strictObject({ type: z.literal('log-entries'), stream: z.string().check(z.regex(FOLLOW_STREAM)), entries: z.array(logEntry()) });

const helperTimings = z.strictObject({
  totalMs: z.number().check(z.minimum(0)),
  lockWaitMs: z.optional(z.number().check(z.minimum(0))),
  lockHoldMs: z.optional(z.number().check(z.minimum(0))),
});

const lineBase = {
  type: z.literal('result'),
  protocolVersion: z.int(),
  helperVersion: z.string().check(z.regex(/^[0-9A-Za-z.+-]{1,64}$/, 'expected a version string')),
  operation: z.union([z.enum(OPERATION_NAMES as [string, ...string[]]), z.literal('unknown')]),
  requestId: z.optional(z.string()),
  timings: helperTimings,
};

const helperErrorBody = z.strictObject({
  code: z.enum(ERROR_CODES),
  message: z.string().check(z.maxLength(2000)),
  path: z.optional(z.string()),
});

export const resultLine = z.discriminatedUnion('ok', [
  z.strictObject({ ...lineBase, ok: z.literal(true), result: z.unknown() }),
  z.strictObject({ ...lineBase, ok: z.literal(false), error: helperErrorBody }),
]);

export type HeartbeatLine = z.infer<typeof heartbeatLine>;
export type LogEntriesLine = z.infer<typeof logEntriesLine>;
export type ResultLine = z.infer<typeof resultLine>;
export type HelperErrorBody = z.infer<typeof helperErrorBody>;
export type HelperTimings = z.infer<typeof helperTimings>;

export function formatLine(line: HeartbeatLine | LogEntriesLine | ResultLine): string {
  return `${JSON.stringify(line)}\n`;
}

/** The last line of the helper's output that parses as a result line, or undefined. */
export function findResultLine(stdout: string): ResultLine | undefined {
  const lines = stdout.split('\n');
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const text = lines[i]?.trim();
    if (!text) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    const parsed = resultLine.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  }
  return undefined;
}
