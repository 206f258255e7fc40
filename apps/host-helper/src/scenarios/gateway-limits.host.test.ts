// Real-host proof that the per-gateway limits reach systemd: each limit set is a property of the
// loaded unit, a unit without limits keeps systemd's defaults, and a changed limit rewrites the unit;
// and that they hold against a compromised gateway: one that allocates without end is killed at its
// memory limit and started again by systemd, while its sibling keeps serving, untouched.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AgentOwner, GatewayLimits, RuntimeSettings } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { activateArgs, installTenantGateway, layoutOf, ok, owner, prepareArgs, shell, unitProperty } from '@occ-ssh/test-support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Allocates and touches 16 MiB every 50 ms once `hog` exists in its state directory. It stops at
 * 2 GiB so that a limit that does not hold fails the test without starving this machine.
 */
const MEMORY_HOG = `
const held = [];
const armed = () => require('node:fs').existsSync(process.env.OPENCLAW_STATE_DIR + '/hog');
const timer = setInterval(() => { if (armed() && held.length < 128) held.push(Buffer.alloc(16 << 20, 1)); }, 50);
timer.unref();
`;

describe('per-gateway limits on a real host', () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({ name: 'hlimit' });
    await host.enableResourceControls();
  });
  after(() => host?.down());

  async function served(who: AgentOwner, runtime: Partial<RuntimeSettings>): Promise<number> {
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const rev = prepareArgs(who, 1);
    await ok(host, 'prepare-revision', rev, { runtime });
    return (await ok(host, 'activate-revision', activateArgs(rev), { runtime })).port;
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

  test('a gateway that allocates without end is killed at its memory limit; its sibling keeps serving', async () => {
    const hog = owner('limits-hog', 'limits-attack');
    const sibling = owner('limits-sibling', 'limits-attack');
    const gatewayLimits: GatewayLimits = { memoryMaxMiB: 160 };
    const hogPath = await installTenantGateway(host, 'memory-hog', MEMORY_HOG);
    await served(hog, { openclawPath: hogPath, gatewayLimits });
    const siblingPort = await served(sibling, { gatewayLimits });
    const [siblingPid] = await prop(sibling, 'MainPID');
    for (const who of [hog, sibling]) assert.match((await prop(who, 'MemoryCurrent'))[0] ?? '', /^\d+$/, 'memory is accounted per unit');

    await shell(host, `touch ${layoutOf(hog).state}/hog`);
    let killed = '';
    for (let i = 0; i < 120 && !killed; i++) {
      await sleep(500);
      killed = (await host.journal(layoutOf(hog).unitName)).split('\n').find((line) => line.includes('status=9/KILL')) ?? '';
    }
    assert.match(killed, /Main process exited, code=killed, status=9\/KILL/, 'the kernel killed the gateway at its cgroup limit');
    await shell(host, `rm -f ${layoutOf(hog).state}/hog`);

    assert.deepEqual(await prop(sibling, 'ActiveState'), ['active']);
    assert.deepEqual(await prop(sibling, 'MainPID'), [siblingPid], 'the sibling was never restarted');
    assert.deepEqual(await prop(sibling, 'NRestarts'), ['0']);
    assert.match(await shell(host, `curl -fsS http://127.0.0.1:${siblingPort}/readyz`), /ready/);
    // Restart=always brings the hog back; its restarts show what happened.
    let restarts = 0;
    for (let i = 0; i < 60 && restarts === 0; i++) {
      restarts = Number((await prop(hog, 'NRestarts'))[0]);
      if (restarts === 0) await sleep(500);
    }
    assert.ok(restarts >= 1, `systemd started the killed gateway again (NRestarts ${restarts})`);
  });
});
