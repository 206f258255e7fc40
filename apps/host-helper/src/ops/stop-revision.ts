// stop-revision: stops the gateway when it runs this revision (or nothing identifiable), keeping the
// snapshot, home, state and credentials.
import type { OperationArgs, OperationResult } from '@occ-ssh/protocol';
import { removeFile } from '../atomic-write.js';
import type { OpContext } from '../context.js';
import { inspectRevisionForChange } from '../revision-inspection.js';
import { stopAndDisable } from '../systemd.js';

export async function stopRevision(ctx: OpContext, args: OperationArgs<'stop-revision'>): Promise<OperationResult<'stop-revision'>> {
  const seen = await inspectRevisionForChange(ctx, args);
  if (!seen.agent) return { unitFound: false, currentRemoved: false };
  if (seen.current !== null && seen.current !== seen.paths.currentTarget) return { unitFound: seen.unit !== null, currentRemoved: false };
  await stopAndDisable(seen.layout.unitName);
  removeFile(seen.layout.served);
  const currentRemoved = removeFile(seen.layout.current);
  return { unitFound: seen.unit !== null, currentRemoved };
}
