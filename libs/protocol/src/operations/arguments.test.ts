// The argument builders: OCC's resources in, each operation's exact wire arguments out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATIONS } from './index.js';
import { activateArgs, deleteAgentArgs, namespaceArgs, ownerOf, prepareArgs, readLogsArgs, revisionArgs, setupArgs } from './arguments.js';

// OCC's resources as OCC sends them, with fields the wire does not carry.
const NAMESPACE = { id: 'ns-1', name: 'stable', status: 'ready', createdAt: '2026-01-01T00:00:00.000Z' };
const AGENT = { id: 'agent-1', namespaceId: 'ns-1', servicePrincipalId: 'sp-1', name: 'Support' };
const REVISION = { id: 'rev-3', revision: 3, namespaceId: 'ns-1', agentId: 'agent-1', configuration: { gateway: {} } };

const OWNER = { namespace: { id: 'ns-1', name: 'stable' }, agent: { id: 'agent-1' }, servicePrincipal: { id: 'sp-1' } };
const REVISION_IDENTITY = { id: 'rev-3', number: 3 };
const HASH = 'c'.repeat(64);

/** Every built value is also what the operation's own schema admits. */
function admitted(operation: keyof typeof OPERATIONS, args: unknown): void {
  const parsed = OPERATIONS[operation].args.safeParse(args);
  assert.equal(parsed.success, true, JSON.stringify(parsed.error?.issues));
}

describe('argument builders', () => {
  it('ownerOf: the Namespace ID and name, the Agent ID and its ServicePrincipal, nothing else', () => {
    assert.deepStrictEqual(ownerOf({ namespace: NAMESPACE, agent: AGENT }), OWNER);
  });

  it('namespaceArgs: ensure-namespace and delete-namespace name the Namespace by ID and name', () => {
    const args = namespaceArgs(NAMESPACE);
    assert.deepStrictEqual(args, { namespace: { id: 'ns-1', name: 'stable' } });
    admitted('ensure-namespace', args);
    admitted('delete-namespace', args);
  });

  it("revisionArgs: the owner and the revision's ID with OCC's `revision` as `number`", () => {
    const args = revisionArgs(OWNER, REVISION);
    assert.deepStrictEqual(args, { owner: OWNER, revision: REVISION_IDENTITY });
    for (const operation of ['verify-revision', 'stop-revision', 'retire-revision', 'diagnose-deployment', 'describe-runtime'] as const) admitted(operation, args);
  });

  it('prepareArgs: the OpenClaw embedded harness and the rendered document, its hash and auth mode', () => {
    const args = prepareArgs(OWNER, REVISION, { text: '{"gateway":{}}\n', hash: HASH, auth: 'trusted-proxy' });
    assert.deepStrictEqual(args, {
      owner: OWNER,
      revision: REVISION_IDENTITY,
      harness: 'openclaw/embedded',
      configuration: { document: '{"gateway":{}}\n', hash: HASH, auth: 'trusted-proxy' },
    });
    admitted('prepare-revision', args);
  });

  it('setupArgs: the admitted workspace setup as given', () => {
    const setup = { id: 'setup-1', completed: false, documents: [{ name: 'SOUL.md' as const, content: '# SOUL.md\n' }] };
    const args = setupArgs(OWNER, REVISION, setup);
    assert.deepStrictEqual(args, { owner: OWNER, revision: REVISION_IDENTITY, setup: { id: 'setup-1', completed: false, documents: [{ name: 'SOUL.md', content: '# SOUL.md\n' }] } });
    admitted('setup-workspace', args);
  });

  it("activateArgs: the configuration hash, launch environment and readiness bound; the setup's ID only when there is one", () => {
    const activation = { configurationHash: HASH, launchEnvironment: { CFG_TOKEN: 'opaque-1' }, readinessTimeoutMs: 120_000 };
    const without = activateArgs(OWNER, REVISION, activation);
    assert.deepStrictEqual(without, { owner: OWNER, revision: REVISION_IDENTITY, configurationHash: HASH, launchEnvironment: { CFG_TOKEN: 'opaque-1' }, readinessTimeoutMs: 120_000 });
    assert.equal('workspaceSetupId' in without, false);
    const withSetup = activateArgs(OWNER, REVISION, { ...activation, setup: { id: 'setup-1' } });
    assert.deepStrictEqual(withSetup, { ...without, workspaceSetupId: 'setup-1' });
    assert.equal('workspaceSetupId' in activateArgs(OWNER, REVISION, { ...activation, setup: undefined }), false);
    admitted('activate-revision', without);
    admitted('activate-revision', withSetup);
  });

  it('deleteAgentArgs: the owner only', () => {
    const args = deleteAgentArgs(OWNER);
    assert.deepStrictEqual(args, { owner: OWNER });
    admitted('delete-agent', args);
  });

  it('readLogsArgs: the owner and the query; with a revision, its identity too', () => {
    const query = { lines: 50, sinceEpochSeconds: 1_700_000_000 };
    const agentWide = readLogsArgs(OWNER, query);
    assert.deepStrictEqual(agentWide, { owner: OWNER, lines: 50, sinceEpochSeconds: 1_700_000_000 });
    assert.equal('revision' in agentWide, false);
    const sinceServed = readLogsArgs(OWNER, query, REVISION);
    assert.deepStrictEqual(sinceServed, { owner: OWNER, revision: REVISION_IDENTITY, lines: 50, sinceEpochSeconds: 1_700_000_000 });
    admitted('read-logs', agentWide);
    admitted('read-logs', sinceServed);
  });
});
