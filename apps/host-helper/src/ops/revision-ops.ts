// verify-, stop- and retire-revision: ownership checks, then at most a stop and a removal.
import type { OperationArgs, OperationResult } from '@occ-ssh/protocol';
import { verifyAccount } from '../accounts.js';
import { removeFile, removeTree } from '../atomic-write.js';
import { agentPaths, namespacePaths, revisionPaths, type OpContext } from '../context.js';
import { readAgent, readCurrent, readRevision, readServed, verifyNamespace, verifySnapshot, verifyUnitFile } from '../ownership.js';
import { ownershipError } from '../safe-read.js';
import { stopAndDisable } from '../systemd.js';

type Target = OperationArgs<'verify-revision'>;

/** Everything an operation on one revision must verify before it may touch anything. */
function inspect(ctx: OpContext, { owner, revision }: Target) {
  verifyNamespace(namespacePaths(ctx, owner.namespace.id).marker, owner.namespace);
  const layout = agentPaths(ctx, owner);
  const agent = readAgent(layout, owner);
  const paths = revisionPaths(layout, revision);
  const marker = agent ? readRevision(paths, owner, revision) : null;
  const unit = agent ? verifyUnitFile(layout, owner) : null;
  const current = agent ? readCurrent(layout) : null;
  const served = agent ? readServed(layout, owner) : null;
  return { layout, agent, paths, marker, unit, current, served };
}

/**
 * Before a stop or a removal, the account and the snapshot are verified as activation does: a
 * changed snapshot or a reused UID is refused and left in place for inspection.
 */
async function inspectForChange(ctx: OpContext, target: Target) {
  const seen = inspect(ctx, target);
  if (seen.agent) {
    const account = await verifyAccount(ctx, target.owner);
    if (seen.agent.uid !== account.uid || seen.agent.gid !== account.gid) throw ownershipError(seen.layout.marker, 'Agent marker records a different account');
    if (seen.marker) verifySnapshot(seen.paths, seen.marker, account.gid);
  }
  return seen;
}

export async function verifyRevision(ctx: OpContext, args: Target): Promise<OperationResult<'verify-revision'>> {
  const seen = inspect(ctx, args);
  const isCurrent = seen.current === seen.paths.currentTarget;
  const served = isCurrent && seen.served?.revisionId === args.revision.id;
  return { snapshot: seen.marker !== null, current: isCurrent, served, ...(seen.agent ? { port: seen.agent.port } : {}) };
}

/** Stops the gateway when it runs this revision (or nothing identifiable), keeping the snapshot, home, state and credentials. */
export async function stopRevision(ctx: OpContext, args: Target): Promise<OperationResult<'stop-revision'>> {
  const seen = await inspectForChange(ctx, args);
  if (!seen.agent) return { unitFound: false, currentRemoved: false };
  if (seen.current !== null && seen.current !== seen.paths.currentTarget) return { unitFound: seen.unit !== null, currentRemoved: false };
  ctx.session.checkpoint();
  await stopAndDisable(seen.layout.unitName);
  ctx.session.checkpoint();
  removeFile(seen.layout.served);
  const currentRemoved = removeFile(seen.layout.current);
  return { unitFound: seen.unit !== null, currentRemoved };
}

/** Removes only this revision's snapshot; when it is current, the gateway is stopped and the pointer removed first. */
export async function retireRevision(ctx: OpContext, args: Target): Promise<OperationResult<'retire-revision'>> {
  const seen = await inspectForChange(ctx, args);
  if (!seen.agent) return { removed: false, wasCurrent: false };
  const wasCurrent = seen.current === seen.paths.currentTarget;
  if (wasCurrent) {
    ctx.session.checkpoint();
    await stopAndDisable(seen.layout.unitName);
    removeFile(seen.layout.served);
    removeFile(seen.layout.current);
  }
  ctx.session.checkpoint();
  // The marker goes first: a snapshot without its marker is never trusted, so an interrupted removal stays safe.
  removeFile(seen.paths.marker);
  const removed = removeTree(seen.paths.dir) || seen.marker !== null;
  return { removed, wasCurrent };
}
