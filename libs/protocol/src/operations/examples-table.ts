// Every operation's example by name. Kept out of the operation table: the helper never asks for an
// example, and a table entry holding one would carry it into the helper's bundle.
import { activateRevisionExample } from './activate-revision.js';
import { deleteAgentExample } from './delete-agent.js';
import { deleteNamespaceExample } from './delete-namespace.js';
import { describeRuntimeExample } from './describe-runtime.js';
import { diagnoseDeploymentExample } from './diagnose-deployment.js';
import { ensureNamespaceExample } from './ensure-namespace.js';
import type { OperationExample } from './define.js';
import { inventoryExample } from './inventory.js';
import { planOperationExample, type planOperationOperation } from './plan-operation.js';
import { prepareRevisionExample } from './prepare-revision.js';
import { probeExample } from './probe.js';
import { readLogsExample } from './read-logs.js';
import { retireRevisionExample } from './retire-revision.js';
import { setupWorkspaceExample } from './setup-workspace.js';
import { stopRevisionExample } from './stop-revision.js';
import type { HOST_OPERATIONS } from './table.js';
import { verifyRevisionExample } from './verify-revision.js';

type Operations = typeof HOST_OPERATIONS & { 'plan-operation': typeof planOperationOperation };

export const OPERATION_EXAMPLES: { readonly [O in keyof Operations]: () => OperationExample<Operations[O]> } = {
  probe: probeExample,
  'ensure-namespace': ensureNamespaceExample,
  'prepare-revision': prepareRevisionExample,
  'setup-workspace': setupWorkspaceExample,
  'activate-revision': activateRevisionExample,
  'verify-revision': verifyRevisionExample,
  'stop-revision': stopRevisionExample,
  'retire-revision': retireRevisionExample,
  'delete-agent': deleteAgentExample,
  'delete-namespace': deleteNamespaceExample,
  inventory: inventoryExample,
  'read-logs': readLogsExample,
  'diagnose-deployment': diagnoseDeploymentExample,
  'describe-runtime': describeRuntimeExample,
  'plan-operation': planOperationExample,
};
