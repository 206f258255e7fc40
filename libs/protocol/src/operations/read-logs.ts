// read-logs: one Agent's gateway journal, selected by journald's trusted fields; reads only.
import * as z from 'zod/mini';
import { agentOwner, revisionIdentity } from '../identity.js';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_ACCOUNT, EXAMPLE_OWNER } from './examples.js';

/** The most entries one call returns, and the most message bytes (the rest is cut and `truncated` set). */
export const MAX_LOG_LINES = 1000;
export const MAX_LOG_BYTES = 256 * 1024;
/**
 * A follow's bounds: it ends after at most this many seconds (below the helper's 170-second deadline)
 * and once its `log-entries` lines reach this many bytes (below the transport's 4 MiB of output).
 */
export const MAX_FOLLOW_SECONDS = 150;
export const MAX_FOLLOW_BYTES = 2 * 1024 * 1024;
/** Names one follow's `log-entries` lines, so a controller running several routes each to its caller. */
export const FOLLOW_STREAM = /^[0-9a-f]{32}$/;

/** journald's cursor, as journalctl prints it: only these hex fields, so it can be passed back as one argument. */
const journalCursor = () => z.string().check(z.regex(/^s=[0-9a-f]{32};i=[0-9a-f]{1,16};b=[0-9a-f]{32};m=[0-9a-f]{1,16};t=[0-9a-f]{1,16};x=[0-9a-f]{1,16}$/, 'expected a journald cursor'));

export const logEntry = () =>
  z.strictObject({
    /** journald's receive time, ISO 8601 UTC with microseconds. */
    time: z.string(),
    /** _PID, stamped by journald from the writer's credentials. */
    pid: z.nullable(z.int()),
    /** The gateway's own text, unfiltered: whoever shows it must treat it as hostile. Null when journald held more than it shows (over 4096 bytes). */
    message: z.nullable(z.string()),
  });

export const readLogsOperation = lazyOperation(false, () => ({
  args: z.strictObject({
    owner: agentOwner,
    /** Only entries since this revision was served; refused unless it is the served one. */
    revision: z.optional(revisionIdentity),
    /** Seconds since the epoch (UTC); never a string journalctl would parse. */
    sinceEpochSeconds: z.optional(z.int().check(z.minimum(0), z.maximum(2 ** 40))),
    lines: z.int().check(z.minimum(1), z.maximum(MAX_LOG_LINES)),
    /** Entries after this one only: how `logs --follow` asks for what is new. */
    afterCursor: z.optional(journalCursor()),
    /**
     * OCC's runtime view: only the lines of one instance of the pod that runs `revision` (required
     * with it), the current process or the one before it, by systemd's invocation ID of the unit.
     */
    instance: z.optional(z.enum(['current', 'previous'])),
    /** With `instance`: the pod ID describe-runtime gave; refused when the unit now runs another pod. */
    podUid: z.optional(z.string().check(z.maxLength(64))),
    /** With `instance`: only entries of the last this many seconds, by the host's clock. */
    withinSeconds: z.optional(z.int().check(z.minimum(1), z.maximum(2 ** 40))),
    /** With `instance`: at most this many message bytes (UTF-8), the newest kept; a newest entry alone over it is cut. */
    limitBytes: z.optional(z.int().check(z.minimum(1), z.maximum(MAX_LOG_BYTES))),
    /**
     * Follow: the page, then each new entry, as `log-entries` lines named `stream`, from one
     * journalctl --follow with the same selection, until `seconds` pass or MAX_FOLLOW_BYTES are
     * written; the result then carries no entries. Not with `instance`.
     */
    follow: z.optional(
      z.strictObject({
        seconds: z.int().check(z.minimum(1), z.maximum(MAX_FOLLOW_SECONDS)),
        stream: z.string().check(z.regex(FOLLOW_STREAM, 'expected 32 hex digits')),
      }),
    ),
  }),
  result: z.strictObject({
    unit: z.string(),
    uid: z.int(),
    entries: z.array(logEntry()),
    /** The last entry's cursor, or the one given when nothing is new. */
    cursor: z.nullable(journalCursor()),
    /** Entries were left out to keep the answer within MAX_LOG_BYTES. */
    truncated: z.boolean(),
    /** A follow's end: its time bound, its byte bound, or journalctl ended by itself. */
    followEnded: z.optional(z.enum(['time', 'bytes', 'journal'])),
  }),
}));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const readLogsExample = (): OperationExample<typeof readLogsOperation> => ({
  args: { owner: EXAMPLE_OWNER, lines: 100 },
  result: {
    unit: 'openclaw-enterprise-gateway-0123456789ab.service',
    uid: EXAMPLE_ACCOUNT.uid,
    entries: [{ time: '2026-01-01T00:00:00.000000Z', pid: 4242, message: 'listening on 127.0.0.1:18800' }],
    cursor: 's=0123456789abcdef0123456789abcdef;i=1a;b=0123456789abcdef0123456789abcdef;m=2b;t=3c;x=4d',
    truncated: false,
  },
});

export type LogEntry = z.infer<ReturnType<typeof logEntry>>;
