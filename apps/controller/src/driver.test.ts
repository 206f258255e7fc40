// SshComputeDriver end to end with a scripted executor: admission, bindings, hooks, envelopes and logs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError, type Envelope } from '@occ-ssh/protocol';
import pino from 'pino';
import { sshGatewayConfigurationDocument } from './admission/document.js';
import { SEED_INSTALLATION } from '../test/config-fixtures.js';
import { loadInstallationConfiguration } from './config/index.js';
import { SshComputeDriver } from './driver.js';
import {
  FAKE_HELPER,
  FakeExecutor,
  MemoryStream,
  NAMESPACE,
  SAMPLE_RESULTS,
  agentFor,
  failureLine,
  heartbeat,
  okLine,
  recordingOwner,
  rejection,
  revisionFor,
  type RecordingOwnerOptions,
  type Responder,
} from '../test/fakes.js';
import type { AgentRevision, LifecycleDriver } from './types.js';

const HARNESS = { id: 'openclaw', version: '2026.1.0', mode: 'embedded' } as const;
/** A revision with fields in the shapes OCC may send, typed or not. */
const revisionWith = (overrides: Record<string, unknown>) => revisionFor(overrides as Partial<AgentRevision>);

const CONFIGURATION = loadInstallationConfiguration({ text: SEED_INSTALLATION });
const CANARY = 'document-canary-7f3a';
const PLACEHOLDERS = { CFG_TOKEN: 'opaque-cfg-placeholder-1', IAM_TOKEN: 'opaque-iam-placeholder-2' };

interface Setup {
  responder?: Responder;
  owners?: (events: string[]) => LifecycleDriver[];
  cfg?: RecordingOwnerOptions;
  iam?: RecordingOwnerOptions;
  bind?: boolean;
}

/** A driver over the seed Installation with a fake executor, an in-memory logger and two recording hook owners. */
function setup(options: Setup = {}) {
  const events: string[] = [];
  const executor = new FakeExecutor(options.responder, events);
  const stream = new MemoryStream();
  const driver = new SshComputeDriver({ configuration: CONFIGURATION, executor, helper: FAKE_HELPER, logger: pino({ level: 'debug' }, stream) });
  const owners = options.owners?.(events) ?? [
    recordingOwner('configuration-postgres', events, { environment: { CFG_TOKEN: PLACEHOLDERS.CFG_TOKEN }, ...options.cfg }),
    recordingOwner('iam-oidc', events, { capability: 'iam', environment: { IAM_TOKEN: PLACEHOLDERS.IAM_TOKEN }, ...options.iam }),
  ];
  driver.setLifecycleDrivers(owners);
  if (options.bind !== false) driver.bindAgent({ namespace: NAMESPACE, agent: agentFor() });
  return { driver, executor, events, stream };
}

/** Answers `operation` with a helper failure and everything else with its sample result. */
function failing(operation: string, code: Parameters<typeof failureLine>[1], message = `${operation} failed`): Responder {
  return (envelope) => (envelope.operation === operation ? { stdout: `${heartbeat(0)}${failureLine(envelope, code, message)}`, exitCode: 1 } : { stdout: okLine(envelope) });
}

function argsOf(executor: FakeExecutor, operation: string): Record<string, unknown> {
  const call = executor.calls.find((c) => c.envelope.operation === operation);
  assert.ok(call, `no ${operation} was sent`);
  return call.envelope.args as Record<string, unknown>;
}

const OWNER = { namespace: { id: 'ns-1', name: 'stable' }, agent: { id: 'agent-1' }, servicePrincipal: { id: 'sp-1' } };

describe('SshComputeDriver: identity', () => {
  it('is the compute-ssh / occ/ssh Compute driver, activating after OCC commits', () => {
    const { driver } = setup();
    assert.equal(driver.id, 'compute-ssh');
    assert.equal(driver.implementation, 'occ/ssh');
    assert.equal(driver.capability, 'compute');
    assert.equal(driver.activationOrder, 'afterCommit');
  });
});

describe('SshComputeDriver: the operation signal', () => {
  it("passes the signal of OCC's operation in progress, asked per call, to every host operation", async () => {
    const events: string[] = [];
    const executor = new FakeExecutor(undefined, events);
    let current: AbortSignal | undefined;
    const driver = new SshComputeDriver({ configuration: CONFIGURATION, executor, helper: FAKE_HELPER, logger: pino({ level: 'silent' }), getOperationAbortSignal: () => current });
    driver.bindAgent({ namespace: NAMESPACE, agent: agentFor() });
    const first = new AbortController();
    current = first.signal;
    await driver.ensureNamespace(NAMESPACE);
    const second = new AbortController();
    current = second.signal;
    await driver.prepareRevision(revisionFor());
    current = undefined;
    await driver.stopRevision(revisionFor());
    assert.deepEqual(
      executor.calls.map((call) => call.request.signal),
      [first.signal, second.signal, undefined],
    );
  });
});

describe('SshComputeDriver: bindings fail closed', () => {
  it('refuses every revision operation for an unbound revision without contacting a host', async () => {
    const { driver, executor, events } = setup({ bind: false });
    const revision = revisionFor();
    for (const call of [
      () => driver.prepareRevision(revision),
      () => driver.activateRevision(revision),
      () => driver.deactivateRevision(revision),
      () => driver.stopRevision(revision),
      () => driver.retireRevision(revision),
      () => driver.gatewayAddress(revision),
    ]) {
      const error = await rejection(call());
      assert.equal(error.code, 'unbound');
      assert.equal(error.failure, 'permanent');
    }
    assert.equal(executor.calls.length, 0);
    assert.deepEqual(events, [], 'no hook runs for an unbound revision');
  });

  it('refuses a revision whose Agent or Namespace does not match the binding', async () => {
    const { driver, executor } = setup();
    for (const revision of [revisionFor({ agentId: 'agent-2' }), revisionFor({ namespaceId: 'ns-2' })]) {
      assert.equal((await rejection(driver.prepareRevision(revision))).code, 'unbound');
    }
    assert.equal(executor.calls.length, 0);
  });
  it('bindAgent refuses an Agent already bound with another ServicePrincipal or Namespace; the first binding stays in force', async () => {
    const { driver, executor } = setup();
    const moves = [
      { namespace: NAMESPACE, agent: agentFor({ servicePrincipalId: 'sp-2' }) },
      { namespace: { id: 'ns-2', name: 'stable' }, agent: agentFor({ namespaceId: 'ns-2' }) },
    ];
    for (const binding of moves) {
      assert.throws(
        () => driver.bindAgent(binding),
        (error: unknown) => error instanceof ComputeError && error.code === 'ownership' && error.permanent && /already bound to another/.test(error.message),
      );
    }
    // Nothing moved: the original revision still runs under sp-1 in ns-1, and the moved ones stay refused.
    await driver.prepareRevision(revisionFor());
    assert.deepEqual((argsOf(executor, 'prepare-revision').owner as typeof OWNER).servicePrincipal, { id: 'sp-1' });
    assert.equal((await rejection(driver.prepareRevision(revisionFor({ servicePrincipalId: 'sp-2' })))).code, 'admission');
    assert.equal((await rejection(driver.prepareRevision(revisionFor({ namespaceId: 'ns-2' })))).code, 'unbound');
    assert.deepEqual(executor.operations, ['prepare-revision']);
    // Repeating the same binding is what OCC does on every pass.
    assert.doesNotThrow(() => driver.bindAgent({ namespace: NAMESPACE, agent: agentFor() }));
  });

  it('bindAgent may bind the Agent anew once its Namespace was deleted', async () => {
    const { driver } = setup();
    await driver.deleteNamespace(NAMESPACE);
    assert.doesNotThrow(() => driver.bindAgent({ namespace: NAMESPACE, agent: agentFor({ servicePrincipalId: 'sp-2' }) }));
  });

  it('refuses a Namespace that asks for existingNamespace adoption, permanently and without contacting a host', async () => {
    const { driver, executor, events } = setup({ bind: false });
    const adopting = { ...NAMESPACE, existingNamespace: 'tenant-a' };
    assert.throws(
      () => driver.bindAgent({ namespace: adopting, agent: agentFor() }),
      (error: unknown) => error instanceof ComputeError && error.code === 'admission' && error.details.key === 'existingNamespace',
    );
    assert.deepEqual(await driver.ensureNamespace(adopting), {
      namespaceId: 'ns-1',
      namespaceReady: false,
      failure: 'permanent',
      reason: 'admission: Namespace ns-1: existingNamespace adoption is not supported by SSH Compute',
    });
    assert.deepEqual(await driver.deleteNamespace(adopting), { namespaceId: 'ns-1', namespaceDeleted: false, failure: 'permanent' });
    assert.equal(executor.calls.length, 0);
    assert.deepEqual(events, [], 'no hook runs for a refused Namespace');
  });
});

describe('SshComputeDriver: admission', () => {
  it("validateHarnessAuth accepts only embedded runtime auth, in OCC's argument shapes", () => {
    const { driver } = setup();
    assert.doesNotThrow(() => driver.validateHarnessAuth(HARNESS, { method: 'runtime' }, {}));
    assert.doesNotThrow(() => driver.validateHarnessAuth(HARNESS, { method: 'runtime' }, {}, {}));
    for (const [harness, auth, configuration, secretBindings] of [
      [{ ...HARNESS, mode: 'dedicated' }, { method: 'runtime' }, {}, undefined],
      [{ id: 'codex', version: '1', mode: 'dedicated' }, { method: 'runtime' }, {}, undefined],
      [HARNESS, { method: 'api_key', source: { kind: 'secret', id: 's', namespaceId: 'ns-1' }, secretDriverId: 'sd' }, {}, undefined],
      [HARNESS, { method: 'runtime', env: 'OPENAI_API_KEY' }, {}, undefined],
      [HARNESS, { method: 'runtime' }, {}, { KEY: { source: { kind: 'secret', id: 's', namespaceId: 'ns-1' } } }],
      // The document is admitted here too, so a bad one is refused before OCC commits.
      [HARNESS, { method: 'runtime' }, { gateway: { auth: { mode: 'token', token: 'sk-secret-123' } } }, undefined],
    ] as const) {
      assert.throws(
        () => driver.validateHarnessAuth(harness, auth, configuration, secretBindings),
        (error: unknown) => error instanceof ComputeError && error.code === 'admission' && error.permanent,
      );
    }
  });

  it("validateHarnessAuth takes OCC's 5th argument, the credential source type, and refuses one", () => {
    const { driver, executor } = setup();
    const sourceType = { type: 'openai', config: [], secrets: [], rotation: 'none', harnessAuth: { modelProvider: 'openai', loginMode: 'api_key' } };
    assert.throws(
      () => driver.validateHarnessAuth(HARNESS, { method: 'runtime' }, {}, undefined, sourceType),
      (error: unknown) => error instanceof ComputeError && error.code === 'admission' && error.details.key === 'credentialSourceType',
    );
    assert.doesNotThrow(() => driver.validateHarnessAuth(HARNESS, { method: 'runtime' }, {}, undefined, undefined));
    assert.equal(executor.calls.length, 0);
  });

  it('refusals never reach the executor or the hooks', async () => {
    const secretRef = { kind: 'secret', id: 'sec-1', namespaceId: 'ns-1' };
    const refused: AgentRevision[] = [
      revisionWith({ harness: { ...HARNESS, mode: 'dedicated' } }),
      revisionWith({ harnessAuth: { method: 'api_key', source: secretRef, secretDriverId: 'secret-k8s' } }),
      revisionWith({ secretBindings: { MODEL_API_KEY: { source: secretRef, delivery: { type: 'env' } } } }),
      revisionWith({ sandboxDriverId: 'sandbox-gvisor' }),
      revisionWith({ plugins: { driver: { id: 'plugin-x', implementation: 'occ/x' }, plugins: { 'memory-lancedb': { enabled: true } } } }),
      revisionWith({ pluginApprovers: [] }),
      revisionWith({ compute: { id: 'compute-k8s', implementation: 'occ/kubernetes' } }),
      revisionWith({ servicePrincipalId: 'sp-other' }),
      revisionFor({ configuration: { gateway: { auth: { mode: 'token', token: 'sk-secret-123' } } } }),
      revisionFor({ configuration: { gateway: { auth: { password: 'hunter2' } } } }),
      revisionFor({ configuration: { gateway: { port: 18789 } } }),
    ];
    for (const revision of refused) {
      const { driver, executor, events } = setup();
      for (const call of [() => driver.prepareRevision(revision), () => driver.activateRevision(revision)]) {
        const error = await rejection(call());
        assert.equal(error.code, 'admission', JSON.stringify(revision));
        assert.equal(error.failure, 'permanent');
      }
      assert.equal(executor.calls.length, 0);
      assert.deepEqual(events, []);
    }
  });

  it("refuses OCC's per-pass context when it carries Secret environment, a workspace setup for another Agent or managed auth", async () => {
    const contexts = [
      { harnessAuth: { method: 'runtime' }, secretEnvironment: [{ name: 'MODEL_API_KEY', secretId: 'sec-1', namespaceId: 'ns-1', agentId: 'agent-1', backendRef: {} }] },
      { harnessAuth: { method: 'runtime' }, secretEnvironment: [], workspaceSetup: { id: 'ws-1', namespaceId: 'ns-1', agentId: 'agent-2', completed: false } },
      { harnessAuth: { method: 'api_key', backendRef: {} }, secretEnvironment: [] },
    ];
    for (const context of contexts) {
      const { driver, executor, events } = setup();
      for (const call of [() => driver.prepareRevision(revisionFor(), context), () => driver.activateRevision(revisionFor(), context)]) {
        const error = await rejection(call());
        assert.equal(error.code, 'admission');
        assert.match(String(error.details.key), /^context\./);
      }
      assert.equal(executor.calls.length, 0);
      assert.deepEqual(events, []);
    }
    const { driver } = setup();
    assert.equal((await driver.prepareRevision(revisionFor(), { harnessAuth: { method: 'runtime' }, secretEnvironment: [] })).ready, true);
  });

  it('stop, retire and deactivate refuse a revision of another Compute driver or ServicePrincipal, before hooks or host', async () => {
    for (const revision of [revisionWith({ compute: { id: 'compute-ssh', implementation: 'occ/other' } }), revisionWith({ servicePrincipalId: 'sp-2' })]) {
      const { driver, executor, events } = setup();
      for (const call of [() => driver.stopRevision(revision), () => driver.retireRevision(revision), () => driver.deactivateRevision(revision)]) {
        assert.equal((await rejection(call())).code, 'admission');
      }
      assert.equal(executor.calls.length, 0);
      assert.deepEqual(events, []);
    }
  });

  it('refuses an Agent default plugin approver policy, an empty list included', async () => {
    const { driver, executor } = setup({ bind: false });
    driver.bindAgent({ namespace: NAMESPACE, agent: agentFor({ pluginApprovers: [] }) });
    const error = await rejection(driver.prepareRevision(revisionFor()));
    assert.equal(error.code, 'admission');
    assert.equal(error.details.key, 'agent.pluginApprovers');
    assert.equal(executor.calls.length, 0);
  });

  it('refuses a document too large for one argument as permanent configuration, before any host', async () => {
    const { driver, executor } = setup();
    // Fits MAX_DOCUMENT_BYTES as text, but its escaped quotes overflow the argument limit.
    const error = await rejection(driver.prepareRevision(revisionFor({ configuration: { notes: '"'.repeat(20_000) } })));
    assert.equal(error.code, 'configuration');
    assert.equal(error.failure, 'permanent');
    assert.equal(error.details.operation, 'prepare-revision');
    assert.equal(executor.calls.length, 0);
  });
});

describe('SshComputeDriver: prepareRevision', () => {
  it('sends the owner, revision and rendered document, and reports readiness', async () => {
    const { driver, executor, events } = setup();
    const revision = revisionFor();
    const rendered = sshGatewayConfigurationDocument(revision.configuration);
    assert.deepEqual(await driver.prepareRevision(revision), { namespaceId: 'ns-1', agentId: 'agent-1', revisionId: 'rev-1', ready: true });
    assert.deepEqual(argsOf(executor, 'prepare-revision'), {
      owner: OWNER,
      revision: { id: 'rev-1', number: 1 },
      harness: 'openclaw/embedded',
      configuration: { document: rendered.text, hash: rendered.hash, auth: 'password' },
    });
    assert.deepEqual(events, ['exec:prepare-revision'], 'preparation runs no hooks');
  });

  it('reports a superseded candidate as not ready', async () => {
    const { driver } = setup({
      responder: (envelope) => ({
        stdout: okLine(envelope, envelope.operation === 'prepare-revision' ? { ...SAMPLE_RESULTS['prepare-revision'], ready: false, reason: 'superseded', snapshot: 'skipped' } : undefined),
      }),
    });
    assert.equal((await driver.prepareRevision(revisionFor())).ready, false);
  });

  it('surfaces an ownership failure as permanent with host and operation details', async () => {
    const { driver } = setup({ responder: failing('prepare-revision', 'ownership', 'foreign Agent marker') });
    const error = await rejection(driver.prepareRevision(revisionFor()));
    assert.equal(error.code, 'ownership');
    assert.equal(error.failure, 'permanent');
    assert.equal(error.details.host, 'stable');
    assert.equal(error.details.operation, 'prepare-revision');
  });
});

describe('SshComputeDriver: activateRevision', () => {
  it('runs beforeWorkloadStart hooks first, then sends activate-revision with their merged environment', async () => {
    const { driver, executor, events } = setup();
    const revision = revisionFor();
    await driver.activateRevision(revision);
    assert.deepEqual(events, ['beforeWorkloadStart:configuration-postgres', 'beforeWorkloadStart:iam-oidc', 'exec:activate-revision']);
    assert.deepEqual(argsOf(executor, 'activate-revision'), {
      owner: OWNER,
      revision: { id: 'rev-1', number: 1 },
      configurationHash: sshGatewayConfigurationDocument(revision.configuration).hash,
      launchEnvironment: PLACEHOLDERS,
      readinessTimeoutMs: 120_000,
    });
  });

  it('a failing hook prevents the activate operation and compensates the hooks that completed', async () => {
    const { driver, executor, events } = setup({ iam: { fail: ['beforeWorkloadStart'] } });
    const error = await rejection(driver.activateRevision(revisionFor()));
    assert.equal(error.code, 'hook');
    assert.equal(error.failure, 'retryable');
    assert.ok(!error.message.includes('sk-secret-123'));
    assert.equal(executor.calls.length, 0);
    assert.deepEqual(events, ['beforeWorkloadStart:configuration-postgres', 'beforeWorkloadStart:iam-oidc', 'beforeWorkloadStop:configuration-postgres']);
  });

  it('a refused launch environment prevents the activate operation', async () => {
    const { driver, executor } = setup({ iam: { environment: { OPENCLAW_GATEWAY_PASSWORD: 'opaque-x' } } });
    const error = await rejection(driver.activateRevision(revisionFor()));
    assert.equal(error.code, 'configuration');
    assert.equal(executor.calls.length, 0);
  });

  it('an activation failure compensates the started hooks in reverse and rethrows the classified helper error', async () => {
    for (const [code, failure] of [
      ['host-command', 'retryable'],
      ['not-ready', 'retryable'],
      ['ownership', 'permanent'],
    ] as const) {
      const { driver, events } = setup({ responder: failing('activate-revision', code, 'readiness never reached') });
      const error = await rejection(driver.activateRevision(revisionFor()));
      assert.equal(error.code, code);
      assert.equal(error.failure, failure);
      assert.equal(error.details.host, 'stable');
      assert.equal(error.details.operation, 'activate-revision');
      assert.deepEqual(events, [
        'beforeWorkloadStart:configuration-postgres',
        'beforeWorkloadStart:iam-oidc',
        'exec:activate-revision',
        'beforeWorkloadStop:iam-oidc',
        'beforeWorkloadStop:configuration-postgres',
      ]);
    }
  });

  it('a transport failure during activation is retryable and compensated', async () => {
    const { driver, events } = setup({ responder: () => ({ exitCode: 255, transportFailed: true, stderrBytes: 80 }) });
    const error = await rejection(driver.activateRevision(revisionFor()));
    assert.equal(error.code, 'transport');
    assert.equal(error.failure, 'retryable');
    assert.deepEqual(events.slice(-2), ['beforeWorkloadStop:iam-oidc', 'beforeWorkloadStop:configuration-postgres']);
  });
});

describe('SshComputeDriver: stop, retire and deactivate', () => {
  it('stopRevision runs beforeWorkloadStop in reverse before sending stop-revision', async () => {
    const { driver, executor, events } = setup();
    await driver.stopRevision(revisionFor());
    assert.deepEqual(events, ['beforeWorkloadStop:iam-oidc', 'beforeWorkloadStop:configuration-postgres', 'exec:stop-revision']);
    assert.deepEqual(argsOf(executor, 'stop-revision'), { owner: OWNER, revision: { id: 'rev-1', number: 1 } });
  });

  it('retireRevision runs beforeWorkloadStop in reverse before sending retire-revision', async () => {
    const { driver, executor, events } = setup();
    await driver.retireRevision(revisionFor({ id: 'rev-0', revision: 1 }));
    assert.deepEqual(events, ['beforeWorkloadStop:iam-oidc', 'beforeWorkloadStop:configuration-postgres', 'exec:retire-revision']);
    assert.deepEqual(argsOf(executor, 'retire-revision'), { owner: OWNER, revision: { id: 'rev-0', number: 1 } });
  });

  it('deactivateRevision only verifies ownership and runs no hooks', async () => {
    const { driver, executor, events } = setup();
    await driver.deactivateRevision(revisionFor());
    assert.deepEqual(executor.operations, ['verify-revision']);
    assert.deepEqual(events, ['exec:verify-revision']);
  });

  it("gatewayAddress (for the CLI) reports the loopback port on the configured host; OCC's getGatewayEndpoint is absent", async () => {
    const { driver } = setup();
    assert.deepEqual(await driver.gatewayAddress(revisionFor()), { host: '203.0.113.10', port: 18800, url: 'http://127.0.0.1:18800' });
    assert.equal('getGatewayEndpoint' in driver, false, 'workspace-file API endpoint resolution is unsupported');
  });
});

describe('SshComputeDriver: Namespaces', () => {
  it('ensureNamespace creates the marker, then runs afterNamespacePrepared in order', async () => {
    const { driver, executor, events } = setup();
    assert.deepEqual(await driver.ensureNamespace(NAMESPACE), { namespaceId: 'ns-1', namespaceReady: true });
    assert.deepEqual(argsOf(executor, 'ensure-namespace'), { namespace: { id: 'ns-1', name: 'stable' } });
    assert.deepEqual(events, ['exec:ensure-namespace', 'afterNamespacePrepared:configuration-postgres', 'afterNamespacePrepared:iam-oidc']);
  });

  it('ensureNamespace fails permanently for an unmapped Namespace name, without contacting a host', async () => {
    const { driver, executor, events } = setup();
    assert.deepEqual(await driver.ensureNamespace({ id: 'ns-9', name: 'unmapped' }), {
      namespaceId: 'ns-9',
      namespaceReady: false,
      failure: 'permanent',
      reason: 'configuration: Namespace unmapped is not mapped to a host in drivers.compute.configuration.hosts',
    });
    assert.equal(executor.calls.length, 0);
    assert.deepEqual(events, []);
  });

  it('ensureNamespace reports transport, timeout and hook failures as retryable, ownership as permanent', async () => {
    const cases: [Responder, 'retryable' | 'permanent', RegExp][] = [
      [() => ({ exitCode: 255, transportFailed: true }), 'retryable', /^transport: /],
      [() => ({ timedOut: true, exitCode: null, signal: 'SIGTERM' }), 'retryable', /^timeout: /],
      [failing('ensure-namespace', 'ownership'), 'permanent', /^ownership: ensure-namespace on host stable: ensure-namespace failed$/],
      [failing('ensure-namespace', 'lock-timeout'), 'retryable', /^lock-timeout: ensure-namespace on host stable: ensure-namespace failed$/],
    ];
    for (const [responder, failure, reason] of cases) {
      const { driver } = setup({ responder });
      const { reason: actual, ...result } = await driver.ensureNamespace(NAMESPACE);
      assert.deepEqual(result, { namespaceId: 'ns-1', namespaceReady: false, failure });
      assert.match(actual ?? '', reason);
    }
    const { driver } = setup({ cfg: { fail: ['afterNamespacePrepared'] } });
    const { reason, ...result } = await driver.ensureNamespace(NAMESPACE);
    assert.deepEqual(result, { namespaceId: 'ns-1', namespaceReady: false, failure: 'retryable' });
    assert.match(reason ?? '', /^hook: /);
  });

  it('deleteNamespace runs beforeNamespaceDelete in reverse, then deletes and clears the bindings', async () => {
    const { driver, executor, events } = setup();
    assert.deepEqual(await driver.deleteNamespace(NAMESPACE), { namespaceId: 'ns-1', namespaceDeleted: true });
    assert.deepEqual(events, ['beforeNamespaceDelete:iam-oidc', 'beforeNamespaceDelete:configuration-postgres', 'exec:delete-namespace']);
    assert.deepEqual(argsOf(executor, 'delete-namespace'), { namespace: { id: 'ns-1', name: 'stable' } });
    const error = await rejection(driver.prepareRevision(revisionFor()));
    assert.equal(error.code, 'unbound');
    assert.deepEqual(executor.operations, ['delete-namespace']);
  });

  it('a failed deletion keeps the bindings', async () => {
    const { driver, executor } = setup({ responder: failing('delete-namespace', 'host-command') });
    assert.deepEqual(await driver.deleteNamespace(NAMESPACE), { namespaceId: 'ns-1', namespaceDeleted: false, failure: 'retryable' });
    assert.equal((await driver.prepareRevision(revisionFor())).ready, true);
    assert.deepEqual(executor.operations, ['delete-namespace', 'prepare-revision']);
  });

  it('a failing beforeNamespaceDelete hook stops the deletion and keeps the bindings', async () => {
    const { driver, executor } = setup({ iam: { fail: ['beforeNamespaceDelete'] } });
    assert.deepEqual(await driver.deleteNamespace(NAMESPACE), { namespaceId: 'ns-1', namespaceDeleted: false, failure: 'retryable' });
    assert.deepEqual(executor.operations, []);
    await driver.prepareRevision(revisionFor());
  });

  it('deletion of one Namespace leaves another Namespace bound', async () => {
    const { driver, executor } = setup();
    driver.bindAgent({ namespace: { id: 'ns-2', name: 'stable' }, agent: agentFor({ id: 'agent-2', namespaceId: 'ns-2' }) });
    await driver.deleteNamespace(NAMESPACE);
    await driver.prepareRevision(revisionFor({ id: 'rev-2', namespaceId: 'ns-2', agentId: 'agent-2' }));
    assert.deepEqual(executor.operations, ['delete-namespace', 'prepare-revision']);
  });
});

describe('SshComputeDriver: lifecycle hook owners', () => {
  it('refuses setLifecycleDrivers after the first lifecycle operation', async () => {
    const { driver } = setup();
    await driver.ensureNamespace(NAMESPACE);
    assert.throws(
      () => driver.setLifecycleDrivers([]),
      (error: unknown) => error instanceof ComputeError && error.code === 'configuration',
    );
  });

  it("takes OCC's Driver objects with hooks on computeLifecycleHooks, and refuses invalid hooks", () => {
    const { driver } = setup();
    assert.doesNotThrow(() => driver.setLifecycleDrivers([recordingOwner('configuration-other', [])]));
    const invalid = { id: 'iam-x', capability: 'iam', implementation: 'occ/x', computeLifecycleHooks: { beforeCommit: async () => undefined } };
    assert.throws(() => driver.setLifecycleDrivers([invalid as unknown as LifecycleDriver]), /invalid computeLifecycleHooks/);
  });
});

describe('SshComputeDriver: what leaves the process', () => {
  async function fullFlow(setupOptions: Setup = {}) {
    const context = setup(setupOptions);
    const { driver } = context;
    const revision = revisionFor({ configuration: { agents: { defaults: { model: CANARY } }, gateway: { auth: { mode: 'password' } } } });
    await driver.ensureNamespace(NAMESPACE);
    driver.validateHarnessAuth(revision.harness, revision.harnessAuth, revision.configuration, revision.secretBindings);
    await driver.prepareRevision(revision);
    await driver.activateRevision(revision);
    await driver.deactivateRevision(revision);
    await driver.stopRevision(revision);
    await driver.retireRevision(revision);
    await driver.deleteNamespace(NAMESPACE);
    return context;
  }

  it('envelopes carry no local SSH file paths and no Installation text', async () => {
    const { executor } = await fullFlow();
    assert.deepEqual(executor.operations, ['ensure-namespace', 'prepare-revision', 'activate-revision', 'verify-revision', 'stop-revision', 'retire-revision', 'delete-namespace']);
    for (const call of executor.calls) {
      const text = JSON.stringify(call.envelope);
      for (const forbidden of [
        CONFIGURATION.ssh.identityFile,
        CONFIGURATION.ssh.knownHostsFile,
        'id_ed25519',
        'known_hosts',
        'compute-ssh',
        'configuration-postgres',
        'occ.example.com',
        'anythingOccOwns',
        '203.0.113.10',
      ]) {
        assert.ok(!text.includes(forbidden), `${call.envelope.operation} envelope contains ${forbidden}`);
      }
      assert.ok(!call.command.includes('/etc/openclaw/ssh'));
      const envelope: Envelope = call.envelope;
      assert.deepEqual(Object.keys(envelope).sort(), ['args', 'configurationHash', 'operation', 'protocolVersion', 'requestId', 'runtime']);
    }
  });

  it('logs carry host, operation and resource fields but no document, password ref or placeholder', async () => {
    const { stream } = await fullFlow();
    const text = stream.text;
    for (const forbidden of [CANARY, 'OPENCLAW_GATEWAY_PASSWORD', PLACEHOLDERS.CFG_TOKEN, PLACEHOLDERS.IAM_TOKEN, 'opaque-', '"gateway"', 'agents', '/etc/openclaw/ssh']) {
      assert.ok(!text.includes(forbidden), `log contains ${forbidden}`);
    }
    const operations = stream.lines.filter((line) => line.msg === 'operation succeeded');
    assert.deepEqual(
      operations.map((line) => line.operation),
      ['ensure-namespace', 'prepare-revision', 'activate-revision', 'verify-revision', 'stop-revision', 'retire-revision', 'delete-namespace'],
    );
    for (const line of operations) {
      assert.equal(line.host, '203.0.113.10:22', 'the machine');
      assert.equal(line.namespaceName, 'stable');
      assert.equal(line.namespace, 'ns-1');
      assert.equal(typeof line.requestId, 'string');
      assert.equal(typeof line.durationMs, 'number');
      if (String(line.operation).endsWith('-revision')) {
        assert.equal(line.agent, 'agent-1');
        assert.equal(line.revision, 'rev-1');
      }
    }
  });

  it('failure log lines carry the code and verdict but no helper stdout', async () => {
    const { driver, stream, executor } = setup({
      responder: (envelope) => ({ stdout: `leaked ${CANARY}\n${failureLine(envelope, 'host-command', 'systemctl restart failed')}`, exitCode: 1, stderrBytes: 300 }),
    });
    await rejection(driver.activateRevision(revisionFor()));
    const failed = stream.lines.find((line) => line.msg === 'operation failed');
    assert.ok(failed);
    assert.equal(failed.host, '203.0.113.10:22');
    assert.equal(failed.namespaceName, 'stable');
    assert.match(String(failed.requestId), /^[0-9a-f-]{36}$/, 'a failure line carries the request ID too');
    assert.equal(failed.requestId, executor.calls.at(-1)!.envelope.requestId);
    assert.equal(failed.operation, 'activate-revision');
    assert.equal(failed.namespace, 'ns-1');
    assert.equal(failed.agent, 'agent-1');
    assert.equal(failed.revision, 'rev-1');
    assert.equal(failed.code, 'host-command');
    assert.equal(failed.failure, 'retryable');
    assert.ok(!stream.text.includes(CANARY));
    assert.ok(!stream.text.includes('opaque-'));
  });

  it('close releases the executor', async () => {
    const { driver, executor } = setup();
    await driver.close();
    assert.equal(executor.closed, 1);
  });
});
