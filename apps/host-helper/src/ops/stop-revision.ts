// stop-revision: stops the gateway when it runs this revision (or nothing identifiable), keeping the
// snapshot, home, state and credentials.
import type { OperationArgs, OperationResult } from '@occ-ssh/protocol';
import type { OpContext } from '../context.js';
import { applyPlanned } from '../plan/render.js';
import type { Plan } from '../plan/steps.js';
import { inspectRevisionForChange, type RevisionState } from '../revision-inspection.js';

type Result = OperationResult<'stop-revision'>;

export async function stopRevision(ctx: OpContext, args: OperationArgs<'stop-revision'>): Promise<Result> {
  const plan = await stopRevisionPlan(ctx, args);
  await applyPlanned(ctx, plan.steps);
  return plan.result;
}

/** What stopRevision reads and plans, for it and for plan-operation alike. */
export async function stopRevisionPlan(ctx: OpContext, args: OperationArgs<'stop-revision'>): Promise<Plan<Result>> {
  return planStopRevision(await inspectRevisionForChange(ctx, args));
}

export function planStopRevision({ agent, layout, paths, unit, current }: RevisionState): Plan<Result> {
  if (!agent) return { steps: [], result: { unitFound: false, currentRemoved: false } };
  // Another revision is current: its gateway is not this revision's to stop.
  if (current !== null && current !== paths.currentTarget) return { steps: [], result: { unitFound: unit !== null, currentRemoved: false } };
  return {
    steps: [
      { op: 'stop-and-disable', unit: layout.unitName },
      // The hooks' beforeWorkloadStop revoked its placeholders; the next activation writes new ones.
      { op: 'remove-file', path: layout.launchEnvFile },
      { op: 'remove-file', path: layout.served },
      { op: 'remove-file', path: layout.current },
    ],
    result: { unitFound: unit !== null, currentRemoved: current !== null },
  };
}
