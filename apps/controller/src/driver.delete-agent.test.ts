// deleteAgentRuntimeCredentials with a scripted executor: the binding is verified as bindAgent verifies
// it, one delete-agent call carries the exact owner, no lifecycle hook runs, and the binding goes only on success.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { SEED_INSTALLATION } from '../test/config-fixtures.js';
import { FAKE_HELPER, FakeExecutor, MemoryStream, NAMESPACE, agentFor, failureLine, heartbeat, okLine, recordingOwner, rejection, revisionFor, type Responder } from '../test/fakes.js';
import { loadInstallationConfiguration } from './config/index.js';
import { SshComputeDriver } from './driver.js';

const CONFIGURATION = loadInstallationConfiguration({ text: SEED_INSTALLATION });
const OWNER = { namespace: { id: 'ns-1', name: 'stable' }, agent: { id: 'agent-1' }, servicePrincipal: { id: 'sp-1' } };

function setup(responder?: Responder) {
  const events: string[] = [];
  const executor = new FakeExecutor(responder, events);
  const driver = new SshComputeDriver({ configuration: CONFIGURATION, executor, helper: FAKE_HELPER, logger: pino({ level: 'debug' }, new MemoryStream()) });
  driver.setLifecycleDrivers([recordingOwner('configuration-postgres', events), recordingOwner('iam-oidc', events, { capability: 'iam' })]);
  return { driver, executor, events };
}

const failing: Responder = (envelope) =>
  envelope.operation === 'delete-agent'
    ? { stdout: `${heartbeat(0)}${failureLine(envelope, 'ownership', 'foreign Agent marker', '/var/lib/openclaw-enterprise/x/agent.json')}`, exitCode: 1 }
    : { stdout: okLine(envelope) };

describe('SshComputeDriver: deleteAgentRuntimeCredentials', () => {
  it('sends one delete-agent with the exact owner, without a prior bindAgent (OCC binds only an Agent with revisions), and runs no hook', async () => {
    const { driver, executor, events } = setup();
    assert.equal(await driver.deleteAgentRuntimeCredentials({ namespace: NAMESPACE, agent: agentFor() }), undefined);
    assert.deepEqual(events, ['exec:delete-agent']);
    assert.deepEqual(
      executor.calls.map((call) => call.envelope.args),
      [{ owner: OWNER }],
    );
  });

  it('clears the Agent binding once the host deletion succeeded: a later revision call must bind again', async () => {
    const { driver, executor } = setup();
    driver.bindAgent({ namespace: NAMESPACE, agent: agentFor() });
    await driver.deleteAgentRuntimeCredentials({ namespace: NAMESPACE, agent: agentFor() });
    assert.equal((await rejection(driver.stopRevision(revisionFor()))).code, 'unbound');
    assert.deepEqual(executor.operations, ['delete-agent']);
  });

  it('a failed host deletion keeps the binding and throws the classified error, as OCC retries it', async () => {
    const { driver, executor } = setup(failing);
    driver.bindAgent({ namespace: NAMESPACE, agent: agentFor() });
    const error = await rejection(driver.deleteAgentRuntimeCredentials({ namespace: NAMESPACE, agent: agentFor() }));
    assert.equal(error.code, 'ownership');
    assert.equal(error.permanent, true);
    await driver.stopRevision(revisionFor());
    assert.deepEqual(executor.operations, ['delete-agent', 'stop-revision']);
  });

  it('refuses, before any host, what bindAgent refuses: a malformed identity, an Agent of another Namespace, one bound to another ServicePrincipal', async () => {
    const { driver, executor } = setup();
    driver.bindAgent({ namespace: NAMESPACE, agent: agentFor() });
    const cases = [
      [{ namespace: NAMESPACE, agent: agentFor({ id: 'bad id with spaces' }) }, 'configuration'],
      [{ namespace: NAMESPACE, agent: agentFor({ namespaceId: 'ns-2' }) }, 'unbound'],
      [{ namespace: NAMESPACE, agent: agentFor({ servicePrincipalId: 'sp-2' }) }, 'ownership'],
      [{ namespace: { ...NAMESPACE, name: 'other' }, agent: agentFor() }, 'unbound'],
      [{ namespace: { ...NAMESPACE, existingNamespace: 'adopted' }, agent: agentFor() }, 'admission'],
    ] as const;
    for (const [binding, code] of cases) assert.equal((await rejection(driver.deleteAgentRuntimeCredentials(binding))).code, code, JSON.stringify(binding));
    assert.deepEqual(executor.operations, []);
  });
});
