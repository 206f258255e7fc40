// A driver upgrade on a real host: OCC records each revision's implementation as `<package>@<version>`
// and, after an upgrade, asks the new version to retire (and stop) what the old one deployed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { SshComputeDriver } from '../driver.js';
import { rejection } from '../../test/fakes.js';
import { agentBinding, configFor, memoryLogger, revisionOf } from '../../test/hosts.js';
import type { AgentRevision } from '../types.js';
import { PACKAGE_NAME } from '../version.js';

const ID = 'ssh-fleet';
const V1 = `${PACKAGE_NAME}@1.0.0`;
const V2 = `${PACKAGE_NAME}@1.1.0`;
const OTHER = '@occ-ssh/other-driver@1.1.0';

describe('a driver upgrade against one host', () => {
  let host: TestHost;
  const drivers: SshComputeDriver[] = [];
  const binding = agentBinding('upgrade', 'stable');
  /** Revision `number` as OCC records it when `implementation` is the installed driver. */
  const recorded = (number: number, implementation: string): AgentRevision => ({ ...revisionOf(binding, number), compute: { id: ID, implementation } });
  const rev1 = recorded(1, V1);
  const rev2 = recorded(2, V2);
  /** One driver instance per installed version, as OCC's loader builds it after each upgrade. */
  const driverFor = (implementation: string) => {
    const driver = new SshComputeDriver({ configuration: configFor({ stable: host }), id: ID, implementation, logger: memoryLogger().logger, readinessTimeoutMs: 20_000 });
    drivers.push(driver);
    driver.bindAgent(binding);
    return driver;
  };
  let v1: SshComputeDriver;
  let v2: SshComputeDriver;
  const agent = async () => (await v2.inventory('stable')).namespaces.flatMap((ns) => ns.agents).find((a) => a.agentId === binding.agent.id);
  const mainPid = async () => (await host.run(['systemctl', 'show', '--property=MainPID', '--value', (await agent())!.unit])).trim();

  before(async () => {
    host = await startTestHost({ name: 'cupgrade' });
    v1 = driverFor(V1);
    v2 = driverFor(V2);
  });
  after(async () => {
    for (const driver of drivers) await driver.close();
    await host?.down();
  });

  test('version 1.0.0 prepares and activates revision 1', async () => {
    assert.deepEqual(await v1.ensureNamespace(binding.namespace), { namespaceId: binding.namespace.id, namespaceReady: true });
    assert.equal((await v1.prepareRevision(rev1)).ready, true);
    await v1.activateRevision(rev1);
    const served = await agent();
    assert.equal(served?.servedRevisionId, rev1.id);
    assert.equal(served?.unitState, 'active');
  });

  test('a driver of another package with the same id refuses every revision operation permanently, changing nothing', async () => {
    const other = driverFor(OTHER);
    const before = { agent: await agent(), pid: await mainPid() };
    const operations = [() => other.deactivateRevision(rev1), () => other.stopRevision(rev1), () => other.retireRevision(rev1), () => other.gatewayAddress(rev1), () => other.prepareRevision(rev1)];
    for (const operation of operations) {
      const error = await rejection(operation());
      assert.equal(error.code, 'admission');
      assert.equal(error.failure, 'permanent');
      assert.equal(error.details.key, 'compute');
    }
    assert.deepEqual({ agent: await agent(), pid: await mainPid() }, before);
  });

  test('version 1.1.0 refuses deploy work on the revision 1.0.0 admitted, changing nothing', async () => {
    const before = { agent: await agent(), pid: await mainPid() };
    for (const operation of [() => v2.prepareRevision(rev1), () => v2.activateRevision(rev1)]) {
      const error = await rejection(operation());
      assert.equal(error.code, 'admission');
      assert.equal(error.details.key, 'compute');
    }
    assert.deepEqual({ agent: await agent(), pid: await mainPid() }, before);
  });

  test('version 1.1.0 verifies, reads and stops the revision 1.0.0 deployed', async () => {
    await v2.deactivateRevision(rev1);
    assert.equal((await v2.gatewayAddress(rev1)).port, (await agent())?.port);
    await v2.stopRevision(rev1);
    const stopped = await agent();
    assert.equal(stopped?.unitState, 'inactive');
    assert.equal(stopped?.currentRevisionId, null);
    assert.deepEqual(
      stopped?.revisions.map((r) => r.number),
      [1],
    );
  });

  test("version 1.1.0 deploys revision 2, then retires revision 1 as OCC's retireEarlierRevisions asks", async () => {
    assert.equal((await v2.prepareRevision(rev2)).ready, true);
    await v2.activateRevision(rev2);
    await v2.retireRevision(rev1);
    const upgraded = await agent();
    assert.equal(upgraded?.servedRevisionId, rev2.id);
    assert.equal(upgraded?.unitState, 'active');
    assert.deepEqual(
      upgraded?.revisions.map((r) => r.number),
      [2],
    );
  });
});
