// stop-revision: stops the gateway when it runs this revision (or nothing identifiable), keeping the
// snapshot, home, state and credentials.
import type { OperationArgs, OperationResult } from '@occ-ssh/protocol';
import type { OpContext } from '../context/context.js';
import { appliedPlan } from '../plan/render.js';
import type { Plan } from '../plan/steps.js';
import { inspectRevisionForChange, type RevisionState } from '../revision/revision-inspection.js';

type Result = OperationResult<'stop-revision'>;

/** What stopRevision reads and plans, for it and for plan-operation alike. */
export const stopRevisionPlan = async (ctx: OpContext, args: OperationArgs<'stop-revision'>) => planStopRevision(await inspectRevisionForChange(ctx, args));
export const stopRevision = appliedPlan(stopRevisionPlan);

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
