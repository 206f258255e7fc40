// Cancellation and the operation bound on a real host: both end the local client, the helper
// stops, the hooks are compensated, and a restart already handed to systemd still completes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestHost } from '@occ-ssh/testhost';
import { SshComputeDriver } from '../driver.js';
import { deployFirstRevision, gapAgent, gatewayReadings, sleep, startHookedDriver, stopHookedDriver } from '../../test/driver-host.js';
import { rejection } from '../../test/fakes.js';
import { configFor, memoryLogger, revisionOf } from '../../test/hosts.js';

describe('cancellation and the operation bound on a real host', () => {
  let host: TestHost;
  let driver: SshComputeDriver;
  /** What OCC's getOperationAbortSignal would return for the operation in progress. */
  let operationSignal: AbortSignal | undefined;
  const calls: string[] = [];
  const { binding, layout, target } = gapAgent();
  const { starts, agent, helperGone } = gatewayReadings(
    () => host,
    () => driver,
  );

  before(async () => {
    ({ host, driver } = await startHookedDriver('ccancel', calls, { signal: () => operationSignal, failStart: () => false }));
    await deployFirstRevision(driver, calls);
  });
  after(() => stopHookedDriver(host, driver));

  test('cancellation and the operation bound end the local client: retryable, compensated, the helper stops, the submitted restart completes', async () => {
    const slow = revisionOf(binding, 3, { fixtureGateway: { readyAfterMs: 12_000 } });
    await driver.prepareRevision(slow);
    const controller = new AbortController();
    operationSignal = controller.signal;
    const before = await starts();
    const pending = rejection(driver.activateRevision(slow));
    for (let i = 0; i < 200 && (await starts()) === before; i += 1) await sleep(100);
    controller.abort();
    const cancelled = await pending;
    operationSignal = undefined;
    assert.deepEqual([cancelled.code, cancelled.failure], ['cancelled', 'retryable']);
    assert.match(cancelled.message, /a systemd job already submitted may still complete/);
    assert.deepEqual(calls.splice(0), ['start:3', 'stop:3']);
    assert.equal(await helperGone(), true, 'the helper saw its session close and stopped');
    assert.equal(await host.run(['readlink', layout.current]), target(slow));
    assert.equal((await host.run(['systemctl', 'is-active', layout.unitName])).trim(), 'active', 'the restart handed to systemd completed');
    assert.notEqual((await agent())?.servedRevisionId, slow.id);

    const bounded = new SshComputeDriver({ configuration: configFor({ stable: host }), logger: memoryLogger().logger, operationTimeoutMs: 6000 });
    try {
      bounded.bindAgent(binding);
      const slower = revisionOf(binding, 4, { fixtureGateway: { readyAfterMs: 15_000 } });
      await bounded.prepareRevision(slower);
      const started = Date.now();
      const timedOut = await rejection(bounded.activateRevision(slower));
      assert.deepEqual([timedOut.code, timedOut.failure], ['timeout', 'retryable']);
      assert.match(timedOut.message, /exceeded the 6-second operation bound/);
      assert.ok(Date.now() - started < 15_000, 'ended at the bound, not at readiness');
      assert.equal(await helperGone(), true);
      assert.notEqual((await agent())?.servedRevisionId, slower.id);
      await driver.activateRevision(slower);
      assert.equal((await agent())?.servedRevisionId, slower.id, 'a retry converges');
      calls.splice(0);
    } finally {
      await bounded.close();
    }
  });
});
