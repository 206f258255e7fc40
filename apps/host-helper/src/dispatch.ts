// Runs one decoded operation: root and lock for mutations, none for read-only ones.
import { rootLayout } from '@occ-ssh/markers';
import { OPERATIONS, type Envelope, type HelperTimings, type OperationArgs, type OperationName, type OperationResult } from '@occ-ssh/protocol';
import { sweepTemps } from './fs/atomic-write.js';
import { guardChanges } from './run/change-guard.js';
import type { OpContext } from './context/context.js';
import { LockScope } from './lock/lock.js';
import { activateRevision } from './ops/activate-revision.js';
import { deleteAgent } from './ops/delete-agent.js';
import { deleteNamespace } from './ops/delete-namespace.js';
import { diagnoseDeployment } from './ops/diagnose-deployment.js';
import { describeRuntime } from './ops/describe-runtime.js';
import { ensureNamespace } from './ops/ensure-namespace.js';
import { inventory } from './ops/inventory.js';
import { prepareRevision } from './ops/prepare-revision.js';
import { planOperation } from './ops/plan-operation.js';
import { probe } from './ops/probe.js';
import { readLogs } from './ops/read-logs.js';
import { retireRevision } from './ops/retire-revision.js';
import { setupWorkspace } from './ops/setup-workspace.js';
import { stopRevision } from './ops/stop-revision.js';
import { verifyRevision } from './ops/verify-revision.js';
import { ensureRoot } from './root.js';
import { siblingTempPrefix } from './plan/steps.js';

type Handler<O extends OperationName> = (ctx: OpContext, args: OperationArgs<O>) => Promise<OperationResult<O>>;

/** One handler per operation of the protocol's table: an operation without one does not compile. */
const HANDLERS: { [O in OperationName]: Handler<O> } = {
  probe,
  'ensure-namespace': ensureNamespace,
  'delete-namespace': deleteNamespace,
  'prepare-revision': prepareRevision,
  'setup-workspace': setupWorkspace,
  'activate-revision': activateRevision,
  'verify-revision': verifyRevision,
  'stop-revision': stopRevision,
  'retire-revision': retireRevision,
  'delete-agent': deleteAgent,
  inventory,
  'read-logs': readLogs,
  'diagnose-deployment': diagnoseDeployment,
  'describe-runtime': describeRuntime,
  'plan-operation': planOperation,
};

function run<O extends OperationName>(ctx: OpContext, operation: O, args: OperationArgs<O>): Promise<OperationResult<O>> {
  return HANDLERS[operation](ctx, args);
}

/**
 * Operations that read before they take the lock (LockScope.enter), so a busy host's queue does not
 * hold up what changes nothing: activation's first look and its compile-cache check. They write
 * neither account markers nor the port index, so the sweeps of those are left to the others.
 */
const READ_BEFORE_LOCK: ReadonlySet<OperationName> = new Set(['activate-revision']);

export async function dispatch(ctx: OpContext, op: Envelope, timings: Partial<HelperTimings>): Promise<unknown> {
  if (!OPERATIONS[op.operation].mutates) return run(ctx, op.operation, op.args);
  ctx.session.checkpoint();
  // The one per-change check, installed before the first change (the root's creation).
  guardChanges(() => ctx.session.beforeChange());
  ensureRoot(ctx);
  const root = rootLayout(ctx.runtime.root);
  const late = READ_BEFORE_LOCK.has(op.operation);
  const lock = late ? LockScope.unheld(root.lock, ctx.session.signal) : await LockScope.take(root.lock, ctx.session.signal);
  try {
    ctx.session.checkpoint();
    if (!late) {
      sweepTemps(root.accounts);
      // A cut write of the port index; the retry of the operation it was cut in may not write it again.
      sweepTemps(root.root, siblingTempPrefix(root.ports));
    }
    return await run({ ...ctx, lock }, op.operation, op.args);
  } finally {
    await lock.release();
    timings.lockWaitMs = lock.waitedMs;
    timings.lockHoldMs = lock.heldMs;
  }
}
