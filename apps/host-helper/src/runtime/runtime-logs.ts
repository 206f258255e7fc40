// read-logs for OCC's runtime view: the lines of one instance (the current process or the one before
// it) of the pod that runs a revision, newest kept within OCC's line and byte bounds.
import { GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { ComputeError, MAX_LOG_BYTES, keepNewestWithin, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import type { OpContext } from '../context/context.js';
import { intOrNull, isoMicros, journalRecords, messageOf } from '../systemd/journal.js';
import { podHistory, podOf, unitMessages } from './runtime-pod.js';

/** Finding the pod and its invocations; the journal read then has its own bound. */
const LOOKUP_BOUND_MS = 4000;
const JOURNAL_TIMEOUT_MS = 15_000;

type Args = OperationArgs<'read-logs'> & { instance: 'current' | 'previous' };

export async function runtimeLogs(ctx: OpContext, args: Args): Promise<OperationResult<'read-logs'>> {
  if (!args.revision) throw new ComputeError('admission', 'read-logs with `instance` needs the revision whose pod is read');
  if (args.afterCursor !== undefined || args.sinceEpochSeconds !== undefined)
    throw new ComputeError('admission', 'read-logs with `instance` takes withinSeconds, not afterCursor or sinceEpochSeconds');
  const deadline = Date.now() + LOOKUP_BOUND_MS;
  const facts = await podOf(ctx, args.owner, args.revision, deadline);
  const unit = facts.layout.unitName;
  if (!facts.pod) throw new ComputeError('admission', `revision ${args.revision.id} has no pod on the host (${facts.absent}): its gateway unit does not run it`);
  if (args.podUid !== undefined && args.podUid !== facts.pod.podUid)
    throw new ComputeError('admission', `pod ${args.podUid} is not the pod of revision ${args.revision.id} (the unit now runs pod ${facts.pod.podUid}, after another activation)`);
  const current = facts.pod.show('InvocationID');
  if (!/^[0-9a-f]{32}$/.test(current)) throw new ComputeError('host-command', `systemd named no invocation of ${unit}`);
  const invocation = args.instance === 'current' ? current : await previousInvocation(ctx, unit, current, facts.pod.servedAt, deadline);
  // Newest first, so the raw bound (systemd/journal.ts) keeps the newest entries; --all, so no entry is withheld as a blob.
  const journal = [
    '--no-pager',
    '--quiet',
    '--output=json',
    '--output-fields=MESSAGE,_PID',
    '--reverse',
    '--all',
    `--namespace=+${GATEWAY_LOG_NAMESPACE}`,
    `--lines=${args.lines}`,
    ...(args.withinSeconds === undefined ? [] : [`--since=@${Math.max(0, Math.floor(Date.now() / 1000) - args.withinSeconds)}`]),
    ...selection(unit, facts.uid, invocation),
  ];
  const { records, cut } = await journalRecords(ctx.runner, journal, ctx.session.signal, JOURNAL_TIMEOUT_MS);
  const entries = records.map((record) => ({ time: isoMicros(record.__REALTIME_TIMESTAMP), pid: intOrNull(record._PID), message: messageOf(record.MESSAGE) ?? '', cursor: record.__CURSOR }));
  const page = keepNewestWithin(
    entries,
    args.limitBytes ?? MAX_LOG_BYTES,
    (entry) => entry.message,
    (entry, message) => ({ ...entry, message }),
  );
  const newest = records[0]?.__CURSOR;
  return {
    unit,
    uid: facts.uid,
    entries: page.lines.map(({ time, pid, message }) => ({ time, pid, message })),
    cursor: typeof newest === 'string' ? newest : null,
    truncated: cut || page.truncated,
  };
}

/**
 * Security: journald stamps _SYSTEMD_UNIT from the writer's control group, _UID from its socket
 * credentials and _SYSTEMD_INVOCATION_ID from the unit's own record, so root's or a sibling's
 * `logger -t <unit>` or `systemd-cat`, which set only SYSLOG_IDENTIFIER, never match.
 */
function selection(unit: string, uid: number, invocation: string): string[] {
  return [`_SYSTEMD_UNIT=${unit}`, `_UID=${uid}`, `_SYSTEMD_INVOCATION_ID=${invocation}`];
}

/** The gateway process before the current one in the same pod: systemd restarted it automatically since. */
async function previousInvocation(ctx: OpContext, unit: string, current: string, servedAt: string | null, deadline: number): Promise<string> {
  const { previous } = podHistory(await unitMessages(ctx, unit, servedAt, deadline), current);
  if (!previous) throw new ComputeError('admission', `${unit} has no previous instance in this pod: systemd has not restarted the gateway since the activation started it`);
  return previous;
}
