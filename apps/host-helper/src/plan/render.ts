// A plan's steps as data an operator can read and a test can compare: what each step acts on, with
// owners, modes and digests, never contents (a unit file, launch.env and documents are shown by their
// SHA-256; a password is made inside apply and never seen here). The digest of that list is what
// `plan-operation` returns and what the real operation's audit line repeats as `plan=`.
import { createHash } from 'node:crypto';
import type { PlannedStep } from '@occ-ssh/protocol';
import type { OpContext } from '../context/context.js';
import { apply, type Applied } from './apply.js';
import type { Id, InnerStep, Plan, PlannedOwnership, Step } from './steps.js';

export function renderSteps(steps: readonly Step[]): PlannedStep[] {
  return steps.flatMap(renderStep);
}

export function planDigest(rendered: readonly PlannedStep[]): string {
  return createHash('sha256').update(JSON.stringify(rendered)).digest('hex');
}

/** `apply`, with the digest of the steps recorded first for the audit line: the plan that was applied, even if cut short. */
export function applyPlanned(ctx: OpContext, steps: readonly Step[]): Promise<Applied> {
  ctx.session.plans.push(planDigest(renderSteps(steps)));
  return apply(ctx, steps);
}

/** An operation whose whole work is one plan: read and planned by `planOf` (which plan-operation shares), then applied. */
export function appliedPlan<A, R>(planOf: (ctx: OpContext, args: A) => Promise<Plan<R>>): (ctx: OpContext, args: A) => Promise<R> {
  return async (ctx, args) => {
    const plan = await planOf(ctx, args);
    await applyPlanned(ctx, plan.steps);
    return plan.result;
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');
const id = (value: Id) => (typeof value === 'number' ? String(value) : 'uidOf' in value ? `uid of ${value.uidOf}` : `gid of ${value.gidOf}`);
const owner = (o: PlannedOwnership) => ({ owner: `${id(o.uid)}:${id(o.gid)}`, mode: `0${o.mode.toString(8)}` });

function renderInner(step: InnerStep): PlannedStep {
  // A marker's kind only: its text carries times that differ between a plan and its later run.
  if (step.op === 'write-marker') return { op: step.op, target: step.path, details: { kind: step.marker.kind } };
  return { op: step.op, target: step.path, details: { ...owner(step.owner), ...(step.repairMode ? { repairMode: true } : {}) } };
}

function renderStep(step: Step): PlannedStep[] {
  switch (step.op) {
    case 'ensure-dir':
    case 'write-marker':
      return [renderInner(step)];
    case 'create-dir-atomic':
      return [{ op: step.op, target: step.path, details: owner(step.owner) }, ...step.inside.map(renderInner)];
    case 'sweep-temps':
      return [{ op: step.op, target: step.dir, details: step.prefix ? { prefix: step.prefix } : {} }];
    case 'write-file':
      return [{ op: step.op, target: step.path, details: { ...owner(step.owner), bytes: Buffer.byteLength(step.content), sha256: digest(step.content) } }];
    case 'create-password-file':
    case 'remove-file':
    case 'remove-tree':
    case 'stake-claim':
    case 'drop-claim':
      return [{ op: step.op, target: step.path, details: {} }];
    case 'replace-symlink':
      return [{ op: step.op, target: step.path, details: { to: step.target } }];
    case 'stage-removal':
      return [{ op: step.op, target: step.path, details: { to: '.removing/<new>', ...(step.agentId ? { agent: step.agentId } : {}), namespace: step.namespaceId } }];
    case 'finish-removals':
      return [{ op: step.op, target: step.agentId ?? step.namespaceId, details: { unlocked: true } }];
    case 'rename':
      return [{ op: step.op, target: step.from, details: { to: step.to } }];
    case 'create-account':
      return [
        {
          op: step.op,
          target: step.name,
          details: {
            home: step.home,
            userExists: step.userExists,
            groupExists: step.groupExists,
            ...(step.startOver ? { startOver: true } : {}),
            ...(step.idRange ? { ids: `${step.idRange.start}-${step.idRange.end}` } : {}),
          },
        },
      ];
    case 'record-ports': {
      const namespaces = Object.values(step.ports);
      return [{ op: step.op, target: 'ports.json', details: { namespaces: namespaces.length, agents: namespaces.reduce((n, agents) => n + Object.keys(agents).length, 0) } }];
    }
    case 'remove-account':
      return [{ op: step.op, target: step.account.account, details: { uid: step.account.uid ?? 'none', gid: step.account.gid ?? 'none' } }];
    case 'enable-unit':
      return [{ op: step.op, target: step.path, details: {} }];
    case 'stop-and-disable':
    case 'stop-native-setup':
      return [{ op: step.op, target: step.unit, details: {} }];
    case 'restart-unit':
      return [{ op: step.op, target: step.unit, details: step.failed ? { resetFailed: true } : {} }];
    case 'daemon-reload':
    case 'checkpoint':
      return [{ op: step.op, target: '', details: {} }];
    case 'native-setup':
      return [
        { op: step.op, target: step.run.layout.dir, details: { as: `${step.run.account.uid}:${step.run.account.gid}`, port: step.run.port, configurationSha256: digest(step.run.configuration) } },
      ];
    case 'write-workspace':
      return [{ op: step.op, target: step.target.dir, details: Object.fromEntries(step.documents.map((d) => [d.name, digest(d.content)])) }];
    case 'verify-workspace':
      return [{ op: step.op, target: step.target.dir, details: { ...step.digests } }];
  }
}
