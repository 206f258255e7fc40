// Activation's launch hooks on a real host: the placeholders a hook accepts reach the running
// gateway, and a failing hook, like a preparation, leaves the running gateway alone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestHost } from '@occ-ssh/testhost';
import type { SshComputeDriver } from '../driver.js';
import { gapAgent, gatewayReadings, startHookedDriver, stopHookedDriver } from '../../test/driver-host.js';
import { rejection } from '../../test/fakes.js';
import { revisionOf } from '../../test/hosts.js';

describe('beforeWorkloadStart hooks on a real host', () => {
  let host: TestHost;
  let driver: SshComputeDriver;
  const calls: string[] = [];
  let failStart = false;
  const { binding, layout, rev1, target } = gapAgent();
  const { mainPid, starts, agent } = gatewayReadings(
    () => host,
    () => driver,
  );

  before(async () => {
    ({ host, driver } = await startHookedDriver('claunch', calls, { signal: () => undefined, failStart: () => failStart }));
  });
  after(() => stopHookedDriver(host, driver));

  test("accepted opaque launch placeholders reach the running gateway's environment", async () => {
    assert.equal((await driver.ensureNamespace(binding.namespace)).namespaceReady, true);
    driver.bindAgent(binding);
    await driver.prepareRevision(rev1);
    await driver.activateRevision(rev1);
    const environ = (await host.run(['cat', `/proc/${await mainPid()}/environ`])).split('\0');
    assert.ok(environ.includes('OCC_GAP_PLACEHOLDER=opaque-gap-1'));
    assert.deepEqual(calls.splice(0), ['start:1']);
  });

  test('preparing leaves the running gateway alone, and a failing beforeWorkloadStart hook prevents launch: the host is not touched', async () => {
    const rev2 = revisionOf(binding, 2);
    const before = { starts: await starts(), pid: await mainPid(), unit: await host.run(['sha256sum', layout.unitFile]) };
    assert.equal((await driver.prepareRevision(rev2)).ready, true);
    failStart = true;
    const error = await rejection(driver.activateRevision(rev2));
    failStart = false;
    assert.deepEqual([error.code, error.failure], ['hook', 'retryable']);
    assert.deepEqual(calls.splice(0), ['start:2'], 'the failed hook itself is not compensated');
    assert.deepEqual({ starts: await starts(), pid: await mainPid(), unit: await host.run(['sha256sum', layout.unitFile]) }, before);
    assert.equal(await host.run(['readlink', layout.current]), target(rev1));
    assert.equal((await agent())?.servedRevisionId, rev1.id);
  });
});
