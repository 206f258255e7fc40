// Runs one decoded operation: root and lock for mutations, none for read-only ones.
import { rootLayout } from '@occ-ssh/markers';
import { OPERATIONS, type Envelope, type HelperTimings } from '@occ-ssh/protocol';
import type { OpContext } from './context.js';
import { guardChanges } from './change-guard.js';
import { sweepTemps } from './fsx.js';
import { LockScope } from './lock.js';
import { activateRevision } from './ops/activate-revision.js';
import { deleteNamespace } from './ops/delete-namespace.js';
import { ensureNamespace } from './ops/ensure-namespace.js';
import { inventory } from './ops/inventory.js';
import { prepareRevision } from './ops/prepare-revision.js';
import { probe } from './ops/probe.js';
import { retireRevision, stopRevision, verifyRevision } from './ops/revision-ops.js';
import { ensureRoot } from './root.js';

function run(ctx: OpContext, op: Envelope): Promise<unknown> {
  switch (op.operation) {
    case 'probe':
      return probe(ctx);
    case 'ensure-namespace':
      return ensureNamespace(ctx, op.args);
    case 'delete-namespace':
      return deleteNamespace(ctx, op.args);
    case 'prepare-revision':
      return prepareRevision(ctx, op.args);
    case 'activate-revision':
      return activateRevision(ctx, op.args);
    case 'verify-revision':
      return verifyRevision(ctx, op.args);
    case 'stop-revision':
      return stopRevision(ctx, op.args);
    case 'retire-revision':
      return retireRevision(ctx, op.args);
    case 'inventory':
      return inventory(ctx);
  }
}

export async function dispatch(ctx: OpContext, op: Envelope, timings: Partial<HelperTimings>): Promise<unknown> {
  if (!OPERATIONS[op.operation].mutates) return run(ctx, op);
  ctx.session.checkpoint();
  ensureRoot(ctx);
  const root = rootLayout(ctx.runtime.root);
  const lock = await LockScope.take(root.lock, ctx.session.signal);
  try {
    ctx.session.checkpoint();
    guardChanges(() => ctx.session.beforeChange());
    sweepTemps(root.accounts);
    return await run({ ...ctx, lock }, op);
  } finally {
    await lock.release();
    timings.lockWaitMs = lock.waitedMs;
    timings.lockHoldMs = lock.heldMs;
  }
}
