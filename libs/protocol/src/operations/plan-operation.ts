// plan-operation: what a mutating operation would change, without changing anything. The helper reads
// the host and runs the operation's own planner; the steps come back as data, secret-free (paths,
// owners, modes and digests, never file contents), with the digest the operation's audit line repeats.
import * as z from 'zod/mini';
import { sha256Hex } from '../fields.js';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_OWNER, EXAMPLE_REVISION } from './examples.js';
import { MUTATING, MUTATING_OPERATIONS, type MutatingOperation } from './table.js';

/** Every mutating operation of the table, by derivation: a plan is asked with exactly the real call's arguments. */
export type PlannedOperation = MutatingOperation;
export const PLANNED_OPERATIONS: readonly PlannedOperation[] = MUTATING_OPERATIONS;

function plannedStep() {
  return z.strictObject({
    /** The step's kind, as the helper's plan names it (create-account, write-file, enable-unit, restart-unit, …). */
    op: z.string(),
    /** What it acts on: a path, a unit or an account. */
    target: z.string(),
    /** Owner, mode, digest, link target and the like; never a file's contents. */
    details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  });
}

function planArgs() {
  const [first, ...rest] = PLANNED_OPERATIONS.map((name) => z.strictObject({ operation: z.literal(name), args: MUTATING[name].args }));
  return z.discriminatedUnion('operation', [first!, ...rest]);
}

export const planOperationOperation = lazyOperation(false, () => ({
  args: planArgs(),
  result: z.strictObject({
    steps: z.array(plannedStep()),
    /** SHA-256 of the steps as listed: the audit line of the real operation carries the same as `plan=`. */
    digest: sha256Hex,
    /** What the operation does after these steps that cannot be planned before they run (activation's readiness wait and record). */
    after: z.nullable(z.string()),
  }),
}));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const planOperationExample = (): OperationExample<typeof planOperationOperation> => ({
  args: { operation: 'stop-revision', args: { owner: EXAMPLE_OWNER, revision: EXAMPLE_REVISION } },
  result: {
    steps: [{ op: 'stop-and-disable', target: 'openclaw-enterprise-gateway-0123456789ab.service', details: {} }],
    digest: '0'.repeat(64),
    after: null,
  },
});

export type PlannedStep = z.infer<ReturnType<typeof plannedStep>>;
export type PlanResult = z.infer<typeof planOperationOperation.result>;
