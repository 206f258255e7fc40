// What verify-, stop- and retire-revision read before acting on one revision: markers, account, snapshot, unit, pointers.
import type { OperationArgs } from '@occ-ssh/protocol';
import { verifyAccount } from '../accounts/accounts.js';
import { agentPaths, namespacePaths, revisionPaths, type OpContext } from '../context/context.js';
import { readAgent, readCurrent, readRevision, readServed, verifyNamespace, verifySnapshot, verifyUnitFile } from '../fs/ownership.js';
import { lstatOrNull, ownershipError } from '../fs/safe-read.js';

type RevisionTarget = OperationArgs<'verify-revision'>;

/** Everything an operation on one revision must verify before it may touch anything. */
function inspectRevision(ctx: OpContext, { owner, revision }: RevisionTarget) {
  verifyNamespace(namespacePaths(ctx, owner.namespace.id).marker, owner.namespace);
  const layout = agentPaths(ctx, owner);
  const agent = readAgent(layout, owner);
  const paths = revisionPaths(layout, revision);
  const marker = agent ? readRevision(paths, owner, revision) : null;
  const unit = agent ? verifyUnitFile(layout, owner) : null;
  const current = agent ? readCurrent(layout) : null;
  const served = agent ? readServed(layout, owner) : null;
  const snapshotDir = agent ? lstatOrNull(paths.dir) !== null : false;
  return { layout, agent, paths, marker, unit, current, served, snapshotDir };
}

export type RevisionState = ReturnType<typeof inspectRevision>;

/**
 * Before a stop, a removal or a verification, the account and the snapshot are verified as
 * activation does: a changed snapshot or a reused UID is refused and left in place for inspection.
 */
export async function inspectRevisionForChange(ctx: OpContext, target: RevisionTarget) {
  const seen = inspectRevision(ctx, target);
  if (seen.agent) {
    const account = await verifyAccount(ctx, target.owner);
    if (seen.agent.uid !== account.uid || seen.agent.gid !== account.gid) throw ownershipError(seen.layout.marker, 'Agent marker records a different account');
    if (seen.marker) verifySnapshot(seen.paths, seen.marker, account.gid);
  }
  return seen;
}
