// Real-host proof that the per-gateway limits reach systemd: each limit set is a property of the
// loaded unit, a unit without limits keeps systemd's defaults, and a changed limit rewrites the unit.
// Enforcement is not proven here: the test hosts' cgroup v1 controllers are read-only (docs/operations.md).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AgentOwner, GatewayLimits, RuntimeSettings } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { activateArgs, ok, owner, prepareArgs, unitProperty } from '@occ-ssh/test-support';

describe('per-gateway limits on a real host', () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({ name: 'hlimit' });
  });
  after(() => host?.down());

  async function served(who: AgentOwner, runtime: Partial<RuntimeSettings>): Promise<void> {
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const rev = prepareArgs(who, 1);
    await ok(host, 'prepare-revision', rev, { runtime });
    await ok(host, 'activate-revision', activateArgs(rev), { runtime });
  }
  const prop = (who: AgentOwner, name: string) => unitProperty(host, who, name);

  test('systemd applies each limit set; a unit without limits keeps systemd defaults', async () => {
    const limited = owner('limits-set', 'limits');
    const plain = owner('limits-none', 'limits');
    const limits: GatewayLimits = { memoryMaxMiB: 512, tasksMax: 64, cpuWeight: 50 };
    await served(limited, { gatewayLimits: limits });
    await served(plain, {});
    assert.deepEqual(await prop(limited, 'MemoryMax'), [String(512 * 1024 * 1024)]);
    assert.deepEqual(await prop(limited, 'MemorySwapMax'), ['0']);
    assert.deepEqual(await prop(limited, 'TasksMax'), ['64']);
    assert.deepEqual(await prop(limited, 'CPUWeight'), ['50']);
    assert.deepEqual(await prop(plain, 'MemoryMax'), ['infinity']);
    // A changed limit rewrites the unit, so the next activation applies it.
    const rev = prepareArgs(limited, 2);
    await ok(host, 'prepare-revision', rev, { runtime: { gatewayLimits: { ...limits, tasksMax: 96 } } });
    const activated = await ok(host, 'activate-revision', activateArgs(rev), { runtime: { gatewayLimits: { ...limits, tasksMax: 96 } } });
    assert.equal(activated.unitChanged, true);
    assert.deepEqual(await prop(limited, 'TasksMax'), ['96']);
  });
});
