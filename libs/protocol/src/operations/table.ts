// The operation table: every wire operation but plan-operation, by name. An operation exists by having
// a line here; the names, the envelope, the mutating set (and so what can be planned) and the helper's
// handler table derive from it, and examples-table.ts must name its example. plan-operation is built
// from its mutating entries.
import { activateRevisionOperation } from './activate-revision.js';
import { deleteAgentOperation } from './delete-agent.js';
import { deleteNamespaceOperation } from './delete-namespace.js';
import { diagnoseDeploymentOperation } from './diagnose-deployment.js';
import { describeRuntimeOperation } from './describe-runtime.js';
import { ensureNamespaceOperation } from './ensure-namespace.js';
import { inventoryOperation } from './inventory.js';
import { prepareRevisionOperation } from './prepare-revision.js';
import { probeOperation } from './probe.js';
import { readLogsOperation } from './read-logs.js';
import { retireRevisionOperation } from './retire-revision.js';
import { setupWorkspaceOperation } from './setup-workspace.js';
import { stopRevisionOperation } from './stop-revision.js';
import { verifyRevisionOperation } from './verify-revision.js';

/** In the order of an Agent's life on a host, which is also the order of OPERATION_NAMES and MUTATING_OPERATIONS. */
export const HOST_OPERATIONS = {
  probe: probeOperation,
  'ensure-namespace': ensureNamespaceOperation,
  'prepare-revision': prepareRevisionOperation,
  'setup-workspace': setupWorkspaceOperation,
  'activate-revision': activateRevisionOperation,
  'verify-revision': verifyRevisionOperation,
  'stop-revision': stopRevisionOperation,
  'retire-revision': retireRevisionOperation,
  'delete-agent': deleteAgentOperation,
  'delete-namespace': deleteNamespaceOperation,
  inventory: inventoryOperation,
  'read-logs': readLogsOperation,
  'diagnose-deployment': diagnoseDeploymentOperation,
  'describe-runtime': describeRuntimeOperation,
} as const;

type HostOperation = keyof typeof HOST_OPERATIONS;

/** The operations that change a host: they run under the host lock, are audited, and can be planned. */
export type MutatingOperation = { [O in HostOperation]: (typeof HOST_OPERATIONS)[O]['mutates'] extends true ? O : never }[HostOperation];

export const MUTATING_OPERATIONS: readonly MutatingOperation[] = (Object.keys(HOST_OPERATIONS) as HostOperation[]).filter((name): name is MutatingOperation => HOST_OPERATIONS[name].mutates);

/** The mutating entries of the table, each with its own argument schema. */
export const MUTATING = Object.fromEntries(MUTATING_OPERATIONS.map((name) => [name, HOST_OPERATIONS[name]])) as Pick<typeof HOST_OPERATIONS, MutatingOperation>;
