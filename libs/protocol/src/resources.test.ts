// resourcesOf: the IDs each operation's typed arguments name, as telemetry, the audit line and chaos read them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertNever } from './errors.js';
import { OPERATION_NAMES, exampleArgs, resourcesOf, type OperationName, type ResourceIds } from './operations/index.js';
import { EXAMPLE_OWNER, EXAMPLE_REVISION } from './operations/examples.js';

const agentIds = { namespaceId: EXAMPLE_OWNER.namespace.id, agentId: EXAMPLE_OWNER.agent.id };
const revisionIds = { ...agentIds, revisionId: EXAMPLE_REVISION.id };

/** What each operation's example should yield, written out per operation so a new one must be added here too. */
function expected(operation: OperationName): ResourceIds {
  switch (operation) {
    case 'probe':
    case 'inventory':
      return {};
    case 'ensure-namespace':
    case 'delete-namespace':
      return { namespaceId: exampleArgs(operation).namespace.id };
    case 'delete-agent':
    case 'read-logs':
      return agentIds;
    case 'prepare-revision':
    case 'setup-workspace':
    case 'activate-revision':
    case 'verify-revision':
    case 'stop-revision':
    case 'retire-revision':
    case 'diagnose-deployment':
    case 'plan-operation':
    case 'describe-runtime':
      return revisionIds;
    default:
      return assertNever(operation, 'operation');
  }
}

describe('resourcesOf', () => {
  for (const operation of OPERATION_NAMES) {
    it(`${operation}: the Namespace, Agent and revision IDs of its example arguments`, () => {
      assert.deepEqual(resourcesOf(operation, exampleArgs(operation)), expected(operation));
    });
  }

  it('reads a parsed envelope, whose operation is a union, as well as one named operation', () => {
    const calls = OPERATION_NAMES.map((operation) => ({ operation, args: exampleArgs(operation) }));
    const ids = calls.map((call) => resourcesOf(call.operation, call.args));
    assert.deepEqual(ids, OPERATION_NAMES.map(expected));
  });
});

describe('assertNever', () => {
  it('throws naming what was unhandled, for a value the types said could not occur', () => {
    assert.throws(() => assertNever('surprise' as never, 'plan step'), /unhandled plan step: "surprise"/);
  });
});
