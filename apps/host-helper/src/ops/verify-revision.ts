// verify-revision: whether a revision is staged, current and served; reads only.
import type { OperationArgs, OperationResult } from '@occ-ssh/protocol';
import type { OpContext } from '../context.js';
import { inspectRevision } from '../revision-inspection.js';

export async function verifyRevision(ctx: OpContext, args: OperationArgs<'verify-revision'>): Promise<OperationResult<'verify-revision'>> {
  const seen = inspectRevision(ctx, args);
  const isCurrent = seen.current === seen.paths.currentTarget;
  const served = isCurrent && seen.served?.revisionId === args.revision.id;
  return { snapshot: seen.marker !== null, current: isCurrent, served, ...(seen.agent ? { port: seen.agent.port } : {}) };
}
