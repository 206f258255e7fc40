// Workspace setup through the driver with a scripted executor: declared to OCC, admitted before any host
// or hook, delivered by setup-workspace after prepare-revision, and required by activate-revision.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { SEED_INSTALLATION } from '../test/config-fixtures.js';
import { FAKE_HELPER, FakeExecutor, MemoryStream, NAMESPACE, SAMPLE_RESULTS, agentFor, okLine, recordingOwner, rejection, revisionFor, type Responder } from '../test/fakes.js';
import { loadInstallationConfiguration } from './config/index.js';
import { SshComputeDriver } from './driver.js';
import type { ComputeRevisionContext } from './types.js';

const CONFIGURATION = loadInstallationConfiguration({ text: SEED_INSTALLATION });
const OWNER = { namespace: { id: 'ns-1', name: 'stable' }, agent: { id: 'agent-1' }, servicePrincipal: { id: 'sp-1' } };
const CANARY = 'workspace-document-canary-5d1e';

function setup(responder?: Responder) {
  const events: string[] = [];
  const executor = new FakeExecutor(responder, events);
  const stream = new MemoryStream();
  const driver = new SshComputeDriver({ configuration: CONFIGURATION, executor, helper: FAKE_HELPER, logger: pino({ level: 'debug' }, stream) });
  driver.setLifecycleDrivers([recordingOwner('configuration-postgres', events), recordingOwner('iam-oidc', events, { capability: 'iam' })]);
  driver.bindAgent({ namespace: NAMESPACE, agent: agentFor() });
  return { driver, executor, events, stream };
}

const contextWith = (workspaceSetup: Record<string, unknown>): ComputeRevisionContext => ({
  harnessAuth: { method: 'runtime' },
  secretEnvironment: [],
  workspaceSetup: { id: 'setup-1', namespaceId: 'ns-1', agentId: 'agent-1', completed: false, ...workspaceSetup },
});

describe('SshComputeDriver: workspace setup', () => {
  it('declares supportsWorkspaceSetup, so OCC hands it the documents instead of failing the deployment', () => {
    assert.equal(setup().driver.supportsWorkspaceSetup, true);
  });

  it('prepare sends setup-workspace after prepare-revision, with the documents in the sealed operation; activate requires its marker', async () => {
    const { driver, executor, stream } = setup();
    const context = contextWith({ files: { 'SOUL.md': `# Soul ${CANARY}\n`, 'AGENTS.md': 'agents' } });
    assert.equal((await driver.prepareRevision(revisionFor(), context)).ready, true);
    assert.deepEqual(executor.operations, ['prepare-revision', 'setup-workspace']);
    assert.deepEqual(executor.calls[1]?.envelope.args, {
      owner: OWNER,
      revision: { id: 'rev-1', number: 1 },
      setup: {
        id: 'setup-1',
        completed: false,
        documents: [
          { name: 'AGENTS.md', content: 'agents' },
          { name: 'SOUL.md', content: `# Soul ${CANARY}\n` },
        ],
      },
    });
    // Security: the documents ride in the sealed operation on stdin; the command line never holds them.
    assert.ok(!executor.calls[1]?.command.includes(CANARY));
    await driver.activateRevision(revisionFor(), context);
    const activate = executor.calls.find((call) => call.envelope.operation === 'activate-revision');
    assert.equal((activate?.envelope.args as { workspaceSetupId?: string }).workspaceSetupId, 'setup-1');
    assert.ok(!stream.text.includes(CANARY), 'no document text in any log line');
  });

  it('a completed setup is verified on each preparation, without documents', async () => {
    const { driver, executor } = setup();
    await driver.prepareRevision(revisionFor(), contextWith({ completed: true }));
    assert.deepEqual(executor.operations, ['prepare-revision', 'setup-workspace']);
    assert.deepEqual((executor.calls[1]?.envelope.args as { setup: unknown }).setup, { id: 'setup-1', completed: true, documents: [] });
  });

  it('without a workspaceSetup, preparation and activation are as before', async () => {
    const { driver, executor } = setup();
    await driver.prepareRevision(revisionFor(), { harnessAuth: { method: 'runtime' }, secretEnvironment: [] });
    await driver.activateRevision(revisionFor());
    assert.deepEqual(executor.operations, ['prepare-revision', 'activate-revision']);
    assert.equal('workspaceSetupId' in (executor.calls[1]?.envelope.args as object), false);
  });

  it('a superseded candidate gets no setup: it is never activated', async () => {
    const superseded: Responder = (envelope) => ({
      stdout: okLine(envelope, envelope.operation === 'prepare-revision' ? { ...SAMPLE_RESULTS['prepare-revision'], ready: false, reason: 'superseded', snapshot: 'skipped' } : undefined),
    });
    const { driver, executor } = setup(superseded);
    assert.equal((await driver.prepareRevision(revisionFor(), contextWith({ files: { 'USER.md': 'u' } }))).ready, false);
    assert.deepEqual(executor.operations, ['prepare-revision']);
  });

  it('refuses a setup for another Agent or with a bad document permanently, before any host or hook', async () => {
    const refused = [
      contextWith({ agentId: 'agent-2' }),
      contextWith({ namespaceId: 'ns-2' }),
      contextWith({ files: { 'TOOLS.md': CANARY } }),
      contextWith({ files: { 'SOUL.md': `${CANARY}\0` } }),
      contextWith({ files: { 'USER.md': 'x'.repeat(16 * 1024 + 1) } }),
    ];
    for (const context of refused) {
      const { driver, executor, events } = setup();
      for (const call of [() => driver.prepareRevision(revisionFor(), context), () => driver.activateRevision(revisionFor(), context)]) {
        const error = await rejection(call());
        assert.equal(error.code, 'admission');
        assert.equal(error.failure, 'permanent');
        assert.match(String(error.details.key), /^context\.workspaceSetup/);
        assert.ok(!error.message.includes(CANARY));
      }
      assert.equal(executor.calls.length, 0);
      assert.deepEqual(events, []);
    }
  });
});
