// The driver's gateway-settings admission, its prepare re-check, teardown of revisions admitted before
// a refusal existed, operatorProvisionedSecrets and describePrepareRevisionFailure, with a scripted executor.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError } from '@occ-ssh/protocol';
import pino from 'pino';
import { SEED_INSTALLATION } from '../test/config-fixtures.js';
import { FAKE_HELPER, FakeExecutor, MemoryStream, NAMESPACE, agentFor, failureLine, heartbeat, okLine, recordingOwner, rejection, revisionFor, type Responder } from '../test/fakes.js';
import { loadInstallationConfiguration } from './config/index.js';
import { SshComputeDriver } from './driver.js';

const CONFIGURATION = loadInstallationConfiguration({ text: SEED_INSTALLATION });
const HARNESS = { id: 'openclaw', version: '2026.1.0', mode: 'embedded' } as const;
const TLS_KEY = 'configuration.gateway.tls.enabled';
const POLICY_KEY = 'configuration.plugins.entries.codex.config.appServer.approvalPolicy';
/** The two documents OCC's reference refuses, each with the key path its refusal must name. */
const REFUSED = [
  { configuration: { gateway: { tls: { enabled: true } } }, key: TLS_KEY },
  { configuration: { plugins: { entries: { codex: { config: { appServer: { approvalPolicy: 'untrusted' } } } } } }, key: POLICY_KEY },
] as const;

function setup(responder?: Responder) {
  const events: string[] = [];
  const executor = new FakeExecutor(responder, events);
  const driver = new SshComputeDriver({ configuration: CONFIGURATION, executor, helper: FAKE_HELPER, logger: pino({ level: 'debug' }, new MemoryStream()) });
  driver.setLifecycleDrivers([recordingOwner('configuration-postgres', events)]);
  driver.bindAgent({ namespace: NAMESPACE, agent: agentFor() });
  return { driver, executor, events };
}

function refusedWith(call: () => void, key: string): void {
  assert.throws(call, (error: unknown) => error instanceof ComputeError && error.code === 'admission' && error.permanent && error.details.key === key);
}

describe('SshComputeDriver: gateway settings OCC refuses', () => {
  it('validateGatewaySettings and validateHarnessAuth refuse each, naming the key path', () => {
    const { driver, executor } = setup();
    for (const { configuration, key } of REFUSED) {
      refusedWith(() => driver.validateGatewaySettings(configuration), key);
      refusedWith(() => driver.validateHarnessAuth(HARNESS, { method: 'runtime' }, configuration), key);
    }
    assert.doesNotThrow(() => driver.validateGatewaySettings({ gateway: { tls: { enabled: false } } }));
    // The same document admission as validateHarnessAuth: a gateway.auth refusal holds here too.
    refusedWith(() => driver.validateGatewaySettings({ gateway: { auth: { mode: 'token' } } }), 'configuration.gateway.auth.mode');
    assert.equal(executor.calls.length, 0);
  });

  it('prepareRevision and activateRevision refuse each again, before any hook or host', async () => {
    for (const { configuration, key } of REFUSED) {
      const { driver, executor, events } = setup();
      for (const call of [() => driver.prepareRevision(revisionFor({ configuration })), () => driver.activateRevision(revisionFor({ configuration }))]) {
        const error = await rejection(call());
        assert.equal(error.code, 'admission');
        assert.equal(error.details.key, key);
      }
      assert.equal(executor.calls.length, 0);
      assert.deepEqual(events, []);
    }
  });

  it('stop, retire and deactivate of a revision admitted before the refusal existed still reach the host: they do not re-admit its document', async () => {
    for (const { configuration } of REFUSED) {
      const { driver, executor } = setup();
      const earlier = revisionFor({ configuration });
      await driver.stopRevision(earlier);
      await driver.retireRevision(earlier);
      await driver.deactivateRevision(earlier);
      assert.deepEqual(executor.operations, ['stop-revision', 'retire-revision', 'verify-revision']);
    }
  });
});

describe('SshComputeDriver: operatorProvisionedSecrets', () => {
  it('is true, and bound OCC Secrets are still refused', () => {
    const { driver } = setup();
    assert.equal(driver.operatorProvisionedSecrets, true);
    const bindings = { MODEL_API_KEY: { source: { kind: 'secret', id: 'sec-1', namespaceId: 'ns-1' }, delivery: { type: 'env' } } } as const;
    refusedWith(() => driver.validateHarnessAuth(HARNESS, { method: 'runtime' }, {}, bindings), 'secretBindings');
  });
});

describe('SshComputeDriver: describePrepareRevisionFailure', () => {
  it("describes what prepareRevision really throws in OCC's format", async () => {
    const refusal = await rejection(setup().driver.prepareRevision(revisionFor({ configuration: REFUSED[0].configuration })));
    const described = setup().driver.describePrepareRevisionFailure(refusal);
    assert.deepEqual({ ...described, message: described.message?.split(':')[0] }, { code: 'SSH_ADMISSION', stage: 'admission', message: TLS_KEY });

    const host: Responder = (envelope) =>
      envelope.operation === 'prepare-revision' ? { stdout: `${heartbeat(0)}${failureLine(envelope, 'ownership', 'foreign Agent marker\nat /var/lib')}`, exitCode: 1 } : { stdout: okLine(envelope) };
    const { driver } = setup(host);
    const ownership = driver.describePrepareRevisionFailure(await rejection(driver.prepareRevision(revisionFor())));
    assert.equal(ownership.code, 'SSH_OWNERSHIP');
    assert.equal(ownership.stage, 'prepare_revision');
    assert.equal(ownership.message?.split(/\r?\n/).length, 1);
    assert.match(ownership.message ?? '', /foreign Agent marker$/);
  });
});
