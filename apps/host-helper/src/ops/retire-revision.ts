// retire-revision: removes only this revision's snapshot; when it is current, the gateway is
// stopped and the pointer removed first.
import type { OperationArgs, OperationResult } from '@occ-ssh/protocol';
import { removeFile, removeTree } from '../atomic-write.js';
import type { OpContext } from '../context.js';
import { inspectRevisionForChange } from '../revision-inspection.js';
import { stopAndDisable } from '../systemd.js';

export async function retireRevision(ctx: OpContext, args: OperationArgs<'retire-revision'>): Promise<OperationResult<'retire-revision'>> {
  const seen = await inspectRevisionForChange(ctx, args);
  if (!seen.agent) return { removed: false, wasCurrent: false };
  const wasCurrent = seen.current === seen.paths.currentTarget;
  if (wasCurrent) {
    await stopAndDisable(seen.layout.unitName);
    removeFile(seen.layout.served);
    removeFile(seen.layout.current);
  }
  // The marker goes first: a snapshot without its marker is never trusted, so an interrupted removal stays safe.
  removeFile(seen.paths.marker);
  const removed = removeTree(seen.paths.dir) || seen.marker !== null;
  return { removed, wasCurrent };
}
