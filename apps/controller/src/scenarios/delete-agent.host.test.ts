// deleteAgentRuntimeCredentials on a real host, in OCC's order: bind, retire every revision, then delete
// the Agent. Its unit, directory and account go, its sibling keeps serving, the binding goes only with
// a deletion that succeeded, and a conflict on the host is permanent with nothing removed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentLayout, accountName } from '@occ-ssh/markers';
import type { TestHost } from '@occ-ssh/testhost';
import { SshComputeDriver } from '../driver.js';
import { ROOT, deployFirstRevision, gapAgent, startHookedDriver, stopHookedDriver } from '../../test/driver-host.js';
import { rejection } from '../../test/fakes.js';
import { configFor, memoryLogger, revisionOf } from '../../test/hosts.js';

describe('deleteAgentRuntimeCredentials on a real host', () => {
  let host: TestHost;
  let driver: SshComputeDriver;
  const calls: string[] = [];
  const { binding, layout, rev1 } = gapAgent();
  const sibling = { namespace: binding.namespace, agent: { ...binding.agent, id: 'agent-sibling', servicePrincipalId: 'sp-sibling' } };
  const siblingLayout = agentLayout(ROOT, '/etc/systemd/system', sibling.namespace.id, sibling.agent.id);
  const isActive = async (unit: string) => (await host.exec(['systemctl', 'is-active', unit])).stdout.trim();
  const account = accountName('openclaw', binding.namespace.id, binding.agent.id);

  before(async () => {
    ({ host, driver } = await startHookedDriver('cdelag', calls, { signal: () => undefined, failStart: () => false }));
    await deployFirstRevision(driver, calls);
    driver.bindAgent(sibling);
    await driver.prepareRevision(revisionOf(sibling, 1));
    await driver.activateRevision(revisionOf(sibling, 1));
    calls.splice(0);
  });
  after(() => stopHookedDriver(host, driver));

  test('a conflict on the host (the Agent recorded for another ServicePrincipal) is permanent, and nothing is removed', async () => {
    // A second controller process, bound to what OCC would never send for this Agent.
    const other = new SshComputeDriver({ configuration: configFor({ stable: host }), logger: memoryLogger().logger });
    try {
      const error = await rejection(other.deleteAgentRuntimeCredentials({ namespace: binding.namespace, agent: { ...binding.agent, servicePrincipalId: 'sp-other' } }));
      assert.equal(error.code, 'ownership');
      assert.equal(error.permanent, true);
    } finally {
      await other.close();
    }
    assert.equal(await isActive(layout.unitName), 'active');
    assert.equal((await host.exec(['test', '-d', layout.dir])).code, 0);
  });

  test("OCC's Agent deletion: retire every revision (its stop hook runs), then delete; the sibling keeps serving and the binding is gone", async () => {
    driver.bindAgent(binding);
    await driver.retireRevision(rev1);
    assert.deepEqual(calls, ['stop:1']);
    await driver.deleteAgentRuntimeCredentials(binding);
    assert.deepEqual(calls, ['stop:1'], 'deletion runs no lifecycle hook of its own');
    for (const path of [layout.dir, layout.unitFile, `${ROOT}/accounts/${account}.json`]) assert.equal((await host.exec(['test', '-e', path])).code, 1, path);
    assert.equal((await host.exec(['getent', 'passwd', account])).code, 2);
    assert.equal(await isActive(siblingLayout.unitName), 'active');
    assert.equal((await rejection(driver.prepareRevision(revisionOf(binding, 2)))).code, 'unbound');
    // Absence is success, as OCC's retries need it.
    await driver.deleteAgentRuntimeCredentials(binding);
    await driver.deleteAgentRuntimeCredentials(binding);
  });

  test('an Agent that never had a revision (OCC then calls no bindAgent) is deleted without one', async () => {
    const fresh = new SshComputeDriver({ configuration: configFor({ stable: host }), logger: memoryLogger().logger });
    try {
      await fresh.deleteAgentRuntimeCredentials({ namespace: binding.namespace, agent: { ...binding.agent, id: 'agent-never', servicePrincipalId: 'sp-never' } });
    } finally {
      await fresh.close();
    }
    assert.equal(await isActive(siblingLayout.unitName), 'active');
  });
});
