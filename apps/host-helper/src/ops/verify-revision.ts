// verify-revision: whether a revision is staged, current and served; reads only.
// It proves ownership as the changing operations do: the Agent's live account must still carry the
// recorded UID/GID and a staged snapshot must still hash to its marker, else `snapshot: true` and the
// port it reports would vouch for something the driver no longer owns.
import type { OperationArgs, OperationResult } from '@occ-ssh/protocol';
import type { OpContext } from '../context/context.js';
import { inspectRevisionForChange } from '../revision/revision-inspection.js';

export async function verifyRevision(ctx: OpContext, args: OperationArgs<'verify-revision'>): Promise<OperationResult<'verify-revision'>> {
  const seen = await inspectRevisionForChange(ctx, args);
  const isCurrent = seen.current === seen.paths.currentTarget;
  const served = isCurrent && seen.served?.revisionId === args.revision.id;
  return { snapshot: seen.marker !== null, current: isCurrent, served, ...(seen.agent ? { port: seen.agent.port } : {}) };
}
