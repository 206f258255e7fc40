// deleteNamespace on a real host: the driver's bindings go only with a deletion that succeeded.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestHost } from '@occ-ssh/testhost';
import type { SshComputeDriver } from '../driver.js';
import { deployFirstRevision, gapAgent, startHookedDriver, stopHookedDriver } from '../../test/driver-host.js';
import { rejection } from '../../test/fakes.js';
import { revisionOf } from '../../test/hosts.js';

describe('deleteNamespace and the bindings on a real host', () => {
  let host: TestHost;
  let driver: SshComputeDriver;
  const calls: string[] = [];
  const { binding, layout } = gapAgent();

  before(async () => {
    ({ host, driver } = await startHookedDriver('cdelete', calls, { signal: () => undefined, failStart: () => false }));
    await deployFirstRevision(driver, calls);
  });
  after(() => stopHookedDriver(host, driver));

  test('a failed deletion keeps the bindings; once the host is fixed, deletion succeeds and clears them', async () => {
    const original = await host.run(['cat', layout.unitFile]);
    await host.run(['sed', '-i', '2s/.*/# X-OCC-Namespace-Id=someone-else/', layout.unitFile]);
    assert.deepEqual(await driver.deleteNamespace(binding.namespace), { namespaceId: binding.namespace.id, namespaceDeleted: false, failure: 'permanent' });
    assert.equal((await host.run(['systemctl', 'is-active', layout.unitName])).trim(), 'active', 'nothing was stopped');
    await host.run(['tee', layout.unitFile], { input: original });
    // Preparation also verifies the unit's header, so the binding is checked once the unit is fixed.
    assert.equal((await driver.prepareRevision(revisionOf(binding, 5))).ready, true, 'the binding survived');
    assert.deepEqual(await driver.deleteNamespace(binding.namespace), { namespaceId: binding.namespace.id, namespaceDeleted: true });
    assert.equal((await rejection(driver.prepareRevision(revisionOf(binding, 6)))).code, 'unbound');
    assert.equal((await host.exec(['test', '-e', layout.dir])).code, 1);
  });
});
