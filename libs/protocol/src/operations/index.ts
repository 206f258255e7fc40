// The operation table (table.ts) with plan-operation, and what derives from it: names, argument and
// result types, resource IDs, examples.
import type * as z from 'zod/mini';
import { OPERATION_EXAMPLES } from './examples-table.js';
import { planOperationOperation } from './plan-operation.js';
import { HOST_OPERATIONS } from './table.js';

/** Every wire operation: the table's, in its order, then plan-operation. */
export const OPERATIONS = { ...HOST_OPERATIONS, 'plan-operation': planOperationOperation } as const;

export type OperationName = keyof typeof OPERATIONS;
export type OperationArgs<O extends OperationName> = z.infer<(typeof OPERATIONS)[O]['args']>;
export type OperationResult<O extends OperationName> = z.infer<(typeof OPERATIONS)[O]['result']>;

export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];

export { MUTATING_OPERATIONS, type MutatingOperation } from './table.js';

// The resource IDs each operation's arguments name, read from its typed arguments. Telemetry, the
// audit line and the controller's logs take them from here, so a new operation or argument shape
// cannot silently lose its IDs: the table must have an entry for every operation.
export interface ResourceIds {
  namespaceId?: string;
  agentId?: string;
  revisionId?: string;
}

type Owner = { namespace: { id: string }; agent: { id: string } };

const ofOwner = (owner: Owner, revision?: { id: string }): ResourceIds => ({
  namespaceId: owner.namespace.id,
  agentId: owner.agent.id,
  ...(revision ? { revisionId: revision.id } : {}),
});

const RESOURCES: { [O in OperationName]: (args: OperationArgs<O>) => ResourceIds } = {
  probe: () => ({}),
  'ensure-namespace': (args) => ({ namespaceId: args.namespace.id }),
  'prepare-revision': (args) => ofOwner(args.owner, args.revision),
  'setup-workspace': (args) => ofOwner(args.owner, args.revision),
  'activate-revision': (args) => ofOwner(args.owner, args.revision),
  'verify-revision': (args) => ofOwner(args.owner, args.revision),
  'stop-revision': (args) => ofOwner(args.owner, args.revision),
  'retire-revision': (args) => ofOwner(args.owner, args.revision),
  'delete-agent': (args) => ofOwner(args.owner),
  'delete-namespace': (args) => ({ namespaceId: args.namespace.id }),
  inventory: () => ({}),
  'read-logs': (args) => ofOwner(args.owner, args.revision),
  'diagnose-deployment': (args) => ofOwner(args.owner, args.revision),
  'describe-runtime': (args) => ofOwner(args.owner, args.revision),
  // A plan names what the operation it plans would touch.
  'plan-operation': (args) => resourcesOf(args.operation, args.args),
};

/** The Namespace, Agent and revision IDs in `args`; O may be a union (a parsed envelope) as well as one name. */
export function resourcesOf<O extends OperationName>(operation: O, args: OperationArgs<O>): ResourceIds {
  // The table's type ties each entry to its operation's arguments; indexing it by a generic name loses that.
  return (RESOURCES[operation] as (args: OperationArgs<O>) => ResourceIds)(args);
}

/** A fresh copy of the operation's example arguments, safe to change. */
export function exampleArgs<O extends OperationName>(operation: O): OperationArgs<O> {
  return structuredClone(OPERATION_EXAMPLES[operation]().args) as OperationArgs<O>;
}

/** A fresh copy of the operation's example result, safe to change. */
export function exampleResult<O extends OperationName>(operation: O): OperationResult<O> {
  return structuredClone(OPERATION_EXAMPLES[operation]().result) as OperationResult<O>;
}

export * from './arguments.js';
export { MAX_READINESS_TIMEOUT_MS } from './activate-revision.js';
export { EXAMPLE_RUNTIME } from './examples.js';
export { OPERATION_EXAMPLES } from './examples-table.js';
export { MAX_DOCUMENT_BYTES, gatewayAuthMode, type GatewayAuthMode } from './prepare-revision.js';
export type { InventoryAgent, InventoryResult } from './inventory.js';
export type { HostCapacity, ProbeResult } from './probe.js';
export { PLANNED_OPERATIONS, type PlanResult, type PlannedOperation, type PlannedStep } from './plan-operation.js';
export { FOLLOW_STREAM, MAX_FOLLOW_BYTES, MAX_FOLLOW_SECONDS, MAX_LOG_BYTES, MAX_LOG_LINES, logEntry, type LogEntry } from './read-logs.js';
export { MAX_RUNTIME_EVENTS, type RuntimeEvent } from './describe-runtime.js';
export { workspaceSetupArgs } from './setup-workspace.js';
export { DEPLOYMENT_CHECKS, DEPLOYMENT_CHECK_CODE, MAX_DEPLOYMENT_CHECKS, type DeploymentCheckName, type HostDeploymentCheck } from './diagnose-deployment.js';
