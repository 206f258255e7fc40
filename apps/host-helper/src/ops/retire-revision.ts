// retire-revision: removes only this revision's snapshot; when it is current, the gateway is
// stopped and the pointer removed first.
import type { OperationArgs, OperationResult } from '@occ-ssh/protocol';
import type { OpContext } from '../context/context.js';
import { appliedPlan } from '../plan/render.js';
import type { Plan, Step } from '../plan/steps.js';
import { inspectRevisionForChange, type RevisionState } from '../revision/revision-inspection.js';

type Result = OperationResult<'retire-revision'>;

/** What retireRevision reads and plans, for it and for plan-operation alike. */
export const retireRevisionPlan = async (ctx: OpContext, args: OperationArgs<'retire-revision'>) => planRetireRevision(await inspectRevisionForChange(ctx, args));
export const retireRevision = appliedPlan(retireRevisionPlan);

export function planRetireRevision({ agent, layout, paths, marker, current, snapshotDir }: RevisionState): Plan<Result> {
  if (!agent) return { steps: [], result: { removed: false, wasCurrent: false } };
  const wasCurrent = current === paths.currentTarget;
  const steps: Step[] = wasCurrent
    ? [
        { op: 'stop-and-disable', unit: layout.unitName },
        { op: 'remove-file', path: layout.launchEnvFile },
        { op: 'remove-file', path: layout.served },
        { op: 'remove-file', path: layout.current },
      ]
    : [];
  // The marker goes first: a snapshot without its marker is never trusted, so an interrupted removal stays safe.
  steps.push({ op: 'remove-file', path: paths.marker }, { op: 'remove-tree', path: paths.dir });
  return { steps, result: { removed: snapshotDir || marker !== null, wasCurrent } };
}
