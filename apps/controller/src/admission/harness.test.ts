// Revision admission against OCC's real field shapes: only embedded OpenClaw with runtime
// credentials, nothing SSH cannot honour, each refusal keyed to the field OCC sends.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError, DRIVER_ID, DRIVER_IMPLEMENTATION } from '@occ-ssh/protocol';
import { agentFor, revisionFor } from '../../test/fakes.js';
import type { AgentRevision, ComputeRevisionContext } from '../types.js';
import { SUPPORTED_HARNESS, admitContext, admitRevision, checkRevisionIdentity, validateHarnessAuth } from './harness.js';

const SELF = { id: DRIVER_ID, implementation: DRIVER_IMPLEMENTATION };
const HARNESS = { id: 'openclaw', version: '2026.1.0', mode: 'embedded' };
/** One OCC Secret binding in OCC's record shape: a variable name to a Secret reference. */
const SECRET_BINDING = { MODEL_API_KEY: { source: { kind: 'secret', id: 'sec-1', namespaceId: 'ns-1' }, delivery: { type: 'env' } } };

/** Asserts `run` throws a permanent `admission` ComputeError and returns it. */
function refused(run: () => void): ComputeError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ComputeError, `expected a ComputeError, got ${String(error)}`);
    assert.equal(error.code, 'admission');
    assert.equal(error.failure, 'permanent');
    return error;
  }
  assert.fail('expected an admission refusal');
}

/** A revision with fields OCC may send that the type does not list (or lists differently). */
const revisionWith = (overrides: Record<string, unknown>) => revisionFor(overrides as Partial<AgentRevision>);

describe('validateHarnessAuth', () => {
  it('accepts OCC\'s OpenClaw embedded Harness with exactly { method: "runtime" }', () => {
    assert.deepEqual(SUPPORTED_HARNESS, { id: 'openclaw', mode: 'embedded' });
    assert.doesNotThrow(() => validateHarnessAuth(HARNESS, { method: 'runtime' }));
    assert.doesNotThrow(() => validateHarnessAuth(HARNESS, { method: 'runtime' }, {}));
  });

  it("refuses dedicated mode, other Harnesses and a Harness that is not OCC's object", () => {
    const cases: [unknown, string][] = [
      [{ ...HARNESS, mode: 'dedicated' }, 'harness.mode'],
      [{ id: 'codex', version: '1.0.0', mode: 'dedicated' }, 'harness.id'],
      [{ ...HARNESS, id: 'OpenClaw' }, 'harness.id'],
      [{ ...HARNESS, version: '' }, 'harness.version'],
      [{ id: 'openclaw', mode: 'embedded' }, 'harness.version'],
      ['openclaw/embedded', 'harness'],
      [null, 'harness'],
    ];
    for (const [harness, key] of cases) assert.equal(refused(() => validateHarnessAuth(harness, { method: 'runtime' })).details.key, key, JSON.stringify(harness));
  });

  it("refuses every managed credential method in OCC's snapshot shapes", () => {
    const secretRef = { kind: 'secret', id: 'sec-1', namespaceId: 'ns-1' };
    const cases: unknown[] = [
      { method: 'api_key', source: secretRef, secretDriverId: 'secret-k8s' },
      { method: 'codex_pat', source: secretRef, secretDriverId: 'secret-k8s' },
      { method: 'oauth', source: secretRef, secretDriverId: 'secret-k8s' },
      { method: 'chatgpt_service_account', serviceAccountId: 'sa-1', credential: { kind: 'access_token', secretRef: { name: 'n', key: 'k' } } },
      { method: 'credential_source', sourceId: 'cs-1', credentialGatewayId: 'cg', sourceType: 'openai', loginMode: 'api_key' },
      { method: 'Runtime' },
      { method: 'runtime', source: secretRef },
      undefined,
      null,
      {},
      'runtime',
    ];
    for (const auth of cases) assert.equal(refused(() => validateHarnessAuth(HARNESS, auth)).details.key, 'harnessAuth', JSON.stringify(auth));
  });

  it('does not let an inherited method stand in for the one own key "method"', () => {
    const auth = Object.assign(Object.create({ method: 'runtime' }) as object, { secretRef: 'model-key' });
    refused(() => validateHarnessAuth(HARNESS, auth));
  });

  it("refuses OCC Secret bindings sent as OCC's record, pointing to the operator env file", () => {
    const error = refused(() => validateHarnessAuth(HARNESS, { method: 'runtime' }, SECRET_BINDING));
    assert.equal(error.details.key, 'secretBindings');
    assert.match(error.message, /<agentDir>\/env/);
    assert.doesNotThrow(() => validateHarnessAuth(HARNESS, { method: 'runtime' }, {}));
  });

  it("refuses a credential source type, OCC's 5th argument: SSH Compute cannot deliver a credential source", () => {
    const sourceType = { type: 'openai', config: [], secrets: [{ name: 'apiKey', required: true }], rotation: 'none', harnessAuth: { modelProvider: 'openai', loginMode: 'api_key' } };
    assert.equal(refused(() => validateHarnessAuth(HARNESS, { method: 'runtime' }, undefined, sourceType)).details.key, 'credentialSourceType');
    assert.doesNotThrow(() => validateHarnessAuth(HARNESS, { method: 'runtime' }, undefined, undefined));
  });

  it('never echoes an unprintable harness id verbatim', () => {
    const error = refused(() => validateHarnessAuth({ ...HARNESS, id: 'evil\n\u001b[31m' }, { method: 'runtime' }));
    assert.ok(!error.message.includes('\n'));
    assert.ok(!error.message.includes('\u001b'));
  });
});

describe('admitRevision', () => {
  const agent = agentFor();

  it("admits a plain embedded runtime revision in OCC's shape", () => {
    assert.doesNotThrow(() => admitRevision(revisionFor(), agent, SELF));
    assert.doesNotThrow(() => admitRevision(revisionWith({ secretBindings: {}, plugins: { driver: { id: 'p', implementation: 'occ/p' }, plugins: {} } }), agent, SELF));
  });

  it('refuses a revision admitted for another Compute id or implementation', () => {
    for (const compute of [{ id: 'compute-k8s', implementation: DRIVER_IMPLEMENTATION }, { id: DRIVER_ID, implementation: 'occ/kubernetes' }, undefined, 'compute-ssh']) {
      assert.equal(refused(() => admitRevision(revisionWith({ compute }), agent, SELF)).details.key, 'compute');
    }
    const packaged = { id: 'ssh-fleet', implementation: '@occ-ssh/compute-driver@0.1.0' };
    assert.doesNotThrow(() => admitRevision(revisionWith({ compute: packaged }), agent, packaged));
  });

  it("refuses a revision whose servicePrincipalId is not the bound Agent's", () => {
    assert.equal(refused(() => admitRevision(revisionWith({ servicePrincipalId: 'sp-other' }), agent, SELF)).details.key, 'servicePrincipalId');
    assert.equal(refused(() => admitRevision(revisionWith({ servicePrincipalId: undefined }), agent, SELF)).details.key, 'servicePrincipalId');
  });

  it("refuses OCC Secret bindings in OCC's record shape (which has no length)", () => {
    assert.equal(refused(() => admitRevision(revisionWith({ secretBindings: SECRET_BINDING }), agent, SELF)).details.key, 'secretBindings');
    assert.equal(refused(() => admitRevision(revisionWith({ secretBindings: [{ name: 'x' }] }), agent, SELF)).details.key, 'secretBindings');
  });

  it('refuses a Sandbox driver id', () => {
    assert.equal(refused(() => admitRevision(revisionWith({ sandboxDriverId: 'sandbox-openshell' }), agent, SELF)).details.key, 'sandboxDriverId');
  });

  it("refuses a requested plugin in OCC's PluginRevisionState", () => {
    const plugins = { driver: { id: 'plugin-x', implementation: 'occ/x' }, plugins: { github: { enabled: true } } };
    assert.equal(refused(() => admitRevision(revisionWith({ plugins }), agent, SELF)).details.key, 'plugins');
    assert.equal(refused(() => admitRevision(revisionWith({ plugins: 'github' }), agent, SELF)).details.key, 'plugins');
  });

  it('refuses a plugin approver policy on the revision or the Agent, an explicit empty list included', () => {
    for (const approvers of [[], [{ channel: 'slack', id: 'U1' }]]) {
      assert.equal(refused(() => admitRevision(revisionWith({ pluginApprovers: approvers }), agent, SELF)).details.key, 'pluginApprovers');
      assert.equal(refused(() => admitRevision(revisionFor(), agentFor({ pluginApprovers: approvers }), SELF)).details.key, 'agent.pluginApprovers');
    }
  });

  it("refuses non-model credential sources frozen into the revision (OCC's credentialSources), an empty list admitted", () => {
    const credentialSources = [{ sourceId: 'cs-1', credentialGatewayId: 'openshell', sourceType: 'github' }];
    assert.equal(refused(() => admitRevision(revisionWith({ credentialSources }), agent, SELF)).details.key, 'credentialSources');
    assert.equal(refused(() => admitRevision(revisionWith({ credentialSources: 'cs-1' }), agent, SELF)).details.key, 'credentialSources');
    assert.doesNotThrow(() => admitRevision(revisionWith({ credentialSources: [] }), agent, SELF));
  });

  it("refuses repository credentials and runs the Harness checks on OCC's harness object", () => {
    assert.equal(refused(() => admitRevision(revisionWith({ repositoryCredentials: { bindings: [] } }), agent, SELF)).details.key, 'repositoryCredentials');
    assert.equal(refused(() => admitRevision(revisionWith({ harness: { ...HARNESS, mode: 'dedicated' } }), agent, SELF)).details.key, 'harness.mode');
    assert.equal(refused(() => admitRevision(revisionWith({ harnessAuth: { method: 'api_key' } }), agent, SELF)).details.key, 'harnessAuth');
  });
});

describe('admitContext', () => {
  const base: ComputeRevisionContext = { harnessAuth: { method: 'runtime' }, secretEnvironment: [] };

  it("admits OCC's context for a runtime revision, and no context", () => {
    assert.doesNotThrow(() => admitContext(base));
    assert.doesNotThrow(() => admitContext({ ...base, repositoryCredentials: [] }));
    assert.doesNotThrow(() => admitContext(undefined));
  });

  it('refuses a secretEnvironment entry, pointing to the operator env file', () => {
    const entry = { name: 'MODEL_API_KEY', secretId: 'sec-1', namespaceId: 'ns-1', agentId: 'agent-1', backendRef: { namespaceName: 'n', name: 'n', key: 'k', uid: 'u' } };
    const error = refused(() => admitContext({ ...base, secretEnvironment: [entry] }));
    assert.equal(error.details.key, 'context.secretEnvironment');
    assert.match(error.message, /<agentDir>\/env/);
  });

  it('leaves a workspaceSetup to its own admission (admission/workspace-setup.ts): this driver delivers it', () => {
    const workspaceSetup = { id: 'ws-1', namespaceId: 'ns-1', agentId: 'agent-1', files: { 'AGENTS.md': '# hi' }, completed: false };
    assert.doesNotThrow(() => admitContext({ ...base, workspaceSetup }));
  });

  it("refuses credential sources resolved into the context (OCC's credentialSources), an empty list admitted", () => {
    const source = { id: 'cs-1', namespaceId: 'ns-1', name: 'github', type: 'github', config: {}, secrets: {}, driverId: 'openshell', state: 'ready', createdAt: '2026-01-01T00:00:00.000Z' };
    assert.equal(refused(() => admitContext({ ...base, credentialSources: [source] } as ComputeRevisionContext)).details.key, 'context.credentialSources');
    assert.doesNotThrow(() => admitContext({ ...base, credentialSources: [] } as ComputeRevisionContext));
  });

  it('refuses resolved managed credentials and repository material', () => {
    assert.equal(refused(() => admitContext({ ...base, harnessAuth: { method: 'api_key', backendRef: {} } })).details.key, 'context.harnessAuth');
    assert.equal(refused(() => admitContext({ ...base, repositoryCredentials: [{ kind: 'retained' }] })).details.key, 'context.repositoryCredentials');
  });
});

describe('checkRevisionIdentity across versions of this driver package', () => {
  const agent = agentFor();
  const PACKAGED = { id: 'ssh-fleet', implementation: '@occ-ssh/compute-driver@1.1.0' };
  const recordedFor = (implementation: unknown, id: unknown = PACKAGED.id) => revisionWith({ compute: { id, implementation } });

  it('teardown accepts the exact implementation and the same package at any other version', () => {
    for (const implementation of ['@occ-ssh/compute-driver@1.1.0', '@occ-ssh/compute-driver@1.0.0', '@occ-ssh/compute-driver@2.0.0-rc.1+build.7']) {
      assert.doesNotThrow(() => checkRevisionIdentity(recordedFor(implementation), agent, PACKAGED, 'teardown'), implementation);
    }
    const unscoped = { id: 'ssh-fleet', implementation: 'ssh-compute@3.0.0' };
    assert.doesNotThrow(() => checkRevisionIdentity(recordedFor('ssh-compute@2.9.1'), agent, unscoped, 'teardown'));
  });

  it('teardown still refuses another id, another package, a missing or malformed version and a non-package string', () => {
    const cases = [
      recordedFor('@occ-ssh/compute-driver@1.0.0', 'compute-ssh'),
      recordedFor('@occ-ssh/other-driver@1.1.0'),
      recordedFor('@evil/compute-driver@1.1.0'),
      recordedFor('compute-driver@1.1.0'),
      recordedFor('@occ-ssh/compute-driver'),
      recordedFor('@occ-ssh/compute-driver@'),
      recordedFor('@occ-ssh/compute-driver@1.0.0 '),
      recordedFor('@occ-ssh/compute-driver@1.0.0@evil'),
      recordedFor('occ/ssh'),
      recordedFor(undefined),
      revisionWith({ compute: '@occ-ssh/compute-driver@1.0.0' }),
    ];
    for (const revision of cases) assert.equal(refused(() => checkRevisionIdentity(revision, agent, PACKAGED, 'teardown')).details.key, 'compute', JSON.stringify(revision.compute));
  });

  it('a driver whose implementation is not a package (the default occ/ssh) accepts only that exact string', () => {
    assert.doesNotThrow(() => checkRevisionIdentity(recordedFor(DRIVER_IMPLEMENTATION, DRIVER_ID), agent, SELF, 'teardown'));
    for (const implementation of [`${DRIVER_IMPLEMENTATION}@1.0.0`, `${DRIVER_IMPLEMENTATION}2`, '@occ-ssh/compute-driver@0.1.0']) {
      assert.equal(refused(() => checkRevisionIdentity(recordedFor(implementation, DRIVER_ID), agent, SELF, 'teardown')).details.key, 'compute', implementation);
    }
  });

  it('deploy work (prepare and activate) accepts only the exact implementation', () => {
    const earlier = recordedFor('@occ-ssh/compute-driver@1.0.0');
    assert.equal(refused(() => checkRevisionIdentity(earlier, agent, PACKAGED)).details.key, 'compute');
    assert.equal(refused(() => admitRevision(earlier, agent, PACKAGED)).details.key, 'compute');
    assert.doesNotThrow(() => admitRevision(recordedFor(PACKAGED.implementation), agent, PACKAGED));
  });
});
