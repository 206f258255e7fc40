// plan-operation: runs a mutating operation's own read and planner, and returns its steps without
// applying them. It takes no lock: it changes nothing, so it neither queues behind a change nor holds
// one up; what it reads is written by atomic renames, so each marker is seen whole, and a change that
// runs at the same time may make the plan stale, which its real run then re-plans under the lock.
import type { OperationArgs, OperationResult, PlannedOperation } from '@occ-ssh/protocol';
import type { OpContext } from '../context/context.js';
import { planDigest, renderSteps } from '../plan/render.js';
import type { Step } from '../plan/steps.js';
import { activateRevisionPlan } from './activate-revision.js';
import { deleteAgentPlan } from './delete-agent.js';
import { deleteNamespacePlan } from './delete-namespace.js';
import { ensureNamespacePlan } from './ensure-namespace.js';
import { prepareRevisionPlan } from './prepare-revision.js';
import { retireRevisionPlan } from './retire-revision.js';
import { setupWorkspacePlan } from './setup-workspace.js';
import { stopRevisionPlan } from './stop-revision.js';

type Planner<O extends PlannedOperation> = (ctx: OpContext, args: OperationArgs<O>) => Promise<{ steps: Step[]; after?: string | null }> | { steps: Step[] };

/** One planner per mutating operation, the same function its handler applies: one without it does not compile. */
const PLANNERS: { [O in PlannedOperation]: Planner<O> } = {
  'ensure-namespace': ensureNamespacePlan,
  'prepare-revision': prepareRevisionPlan,
  'setup-workspace': setupWorkspacePlan,
  'activate-revision': activateRevisionPlan,
  'stop-revision': stopRevisionPlan,
  'retire-revision': retireRevisionPlan,
  'delete-agent': deleteAgentPlan,
  'delete-namespace': deleteNamespacePlan,
};

function planner<O extends PlannedOperation>(operation: O): Planner<O> {
  return PLANNERS[operation];
}

/** A refusal is thrown exactly as the real operation throws it: the same read raises it. */
export async function planOperation(ctx: OpContext, request: OperationArgs<'plan-operation'>): Promise<OperationResult<'plan-operation'>> {
  const plan = await planner(request.operation)(ctx, request.args as never);
  const steps = renderSteps(plan.steps);
  return { steps, digest: planDigest(steps), after: 'after' in plan ? (plan.after ?? null) : null };
}
