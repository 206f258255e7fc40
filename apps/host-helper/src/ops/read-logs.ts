// read-logs: one Agent's gateway journal. The unit and UID come from the Agent's verified markers and
// live account, never from the request; every other value is a number or a checked cursor.
import { GATEWAY_LOG_NAMESPACE } from '@occ-ssh/markers';
import { ComputeError, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { verifyAccount } from '../accounts/accounts.js';
import { agentPaths, namespacePaths, type OpContext } from '../context/context.js';
import { readJournal } from '../systemd/journal.js';
import { followJournal, sendEntries } from '../runtime/journal-follow.js';
import { readServed, requireAgent, verifyNamespace } from '../fs/ownership.js';
import { runtimeLogs } from '../runtime/runtime-logs.js';
import { ownershipError } from '../fs/safe-read.js';

type Args = OperationArgs<'read-logs'>;

export async function readLogs(ctx: OpContext, args: Args): Promise<OperationResult<'read-logs'>> {
  if (args.instance) return runtimeLogs(ctx, { ...args, instance: args.instance });
  if (args.instance && args.follow) throw new ComputeError('admission', '`follow` does not apply with `instance`');
  if (args.podUid !== undefined || args.withinSeconds !== undefined || args.limitBytes !== undefined)
    throw new ComputeError('admission', 'podUid, withinSeconds and limitBytes apply only with `instance`');
  const { owner } = args;
  verifyNamespace(namespacePaths(ctx, owner.namespace.id).marker, owner.namespace);
  const layout = agentPaths(ctx, owner);
  const agent = requireAgent(layout, owner);
  const live = await verifyAccount(ctx, owner);
  if (agent.uid !== live.uid) throw ownershipError(layout.marker, 'Agent marker records a different UID than the live account');
  let since = args.sinceEpochSeconds;
  if (args.revision) {
    const served = readServed(layout, owner);
    // The journal does not record revisions: a revision's entries are those since it began to be served.
    if (served?.revisionId !== args.revision.id)
      throw new ComputeError(
        'conflict',
        `revision ${args.revision.id} is not the revision the gateway serves (${served ? served.revisionId : 'none'}); only the served revision's logs can be told apart`,
        { path: layout.served },
      );
    since = Math.max(since ?? 0, Math.floor(Date.parse(served.servedAt) / 1000));
  }
  // A first look keeps the newest entries; a page after a cursor the oldest, so following skips nothing.
  const page = await readJournal(ctx.runner, journalArgs(layout.unitName, live.uid, args.lines, since, args.afterCursor), args.afterCursor ? 'oldest' : 'newest', ctx.session.signal);
  const cursor = page.cursor ?? args.afterCursor ?? null;
  if (!args.follow) return { unit: layout.unitName, uid: live.uid, ...page, cursor };
  // One journalctl --follow with the same selection, on from the page's last entry (or from now when it had none).
  const startedAt = Math.floor(Date.now() / 1000);
  const written = sendEntries(ctx, args.follow.stream, page.entries);
  const followArgs = journalArgs(layout.unitName, live.uid, 'all', cursor ? undefined : Math.max(since ?? 0, startedAt), cursor ?? undefined);
  const followed = await followJournal(ctx, { args: followArgs, seconds: args.follow.seconds, stream: args.follow.stream, written });
  return { unit: layout.unitName, uid: live.uid, entries: [], cursor: followed.cursor ?? cursor, truncated: page.truncated, followEnded: followed.ended };
}

/**
 * Security: selected by the fields journald stamps itself, the unit from the writer's cgroup and the UID
 * from its socket credentials, so a gateway cannot log into another Agent's view. SYSLOG_IDENTIFIER,
 * which the gateway chooses, is never matched. The gateways' journal namespace and the system journal
 * are read together: a gateway whose unit an earlier release wrote (without LogNamespace=) keeps
 * logging into the system journal until its next activation rewrites the unit, and its older lines
 * stay there; the same matches select its lines in both.
 */
export function journalArgs(unit: string, uid: number, lines: number | 'all', since: number | undefined, afterCursor: string | undefined): string[] {
  return [
    '--no-pager',
    '--quiet',
    '--output=json',
    '--output-fields=MESSAGE,_PID',
    `--namespace=+${GATEWAY_LOG_NAMESPACE}`,
    `--lines=${lines}`,
    ...(since === undefined ? [] : [`--since=@${since}`]),
    ...(afterCursor === undefined ? [] : [`--after-cursor=${afterCursor}`]),
    `_SYSTEMD_UNIT=${unit}`,
    `_UID=${uid}`,
  ];
}
