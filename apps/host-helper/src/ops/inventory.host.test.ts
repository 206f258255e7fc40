// Real-host proof that inventory's cost does not grow by processes per Agent: systemd is asked about
// every unit in one `systemctl show`, enabled is read from the links on disk, and only an answering
// gateway costs a listener check (`ss`). Counted from the helper's own execve calls, under strace.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { activateArgs, ok, owner, prepareArgs } from '@occ-ssh/test-support';

const AGENTS = 6;
const TRACE = '/var/tmp/inventory.trace';

describe('inventory of several Agents on a real host', { timeout: 10 * 60_000 }, () => {
  let host: TestHost;
  const tenants = Array.from({ length: AGENTS }, (_, i) => ({ ...owner(`inv-${i}`, 'shared'), namespace: owner('inv-0', 'shared').namespace }));
  before(async () => {
    host = await startTestHost({ name: 'hinventory', variant: 'strace' });
    await ok(host, 'ensure-namespace', { namespace: tenants[0]!.namespace });
    for (const who of tenants) await ok(host, 'prepare-revision', prepareArgs(who, 1));
    // All but the last run; the last has a unit that was stopped.
    for (const who of tenants) await ok(host, 'activate-revision', activateArgs(prepareArgs(who, 1)));
    await ok(host, 'stop-revision', { owner: tenants.at(-1)!, revision: prepareArgs(tenants.at(-1)!, 1).revision });
  });
  after(() => host?.down());

  test('one systemctl for every unit, no is-enabled, and one ss per answering gateway', async (t) => {
    const result = await ok(host, 'inventory', {}, { wrap: ['strace', '-f', '-qq', '-z', '-e', 'trace=execve', '-e', 'signal=none', '-o', TRACE] });
    const agents = result.namespaces.flatMap((ns) => ns.agents);
    assert.equal(agents.length, AGENTS);
    const running = agents.filter((agent) => agent.agentId !== tenants.at(-1)!.agent.id);
    for (const agent of running) assert.deepEqual([agent.unitState, agent.enabled, agent.ready, agent.restarts], ['active', true, true, 0], agent.agentId);
    const stopped = agents.find((agent) => agent.agentId === tenants.at(-1)!.agent.id)!;
    assert.deepEqual([stopped.unitState, stopped.ready], ['inactive', false]);
    const programs = (await host.run(['cat', TRACE]))
      .split('\n')
      .map((line) => /execve\("([^"]+)"/.exec(line)?.[1])
      .filter((path): path is string => path !== undefined && !path.endsWith('/node'))
      .map((path) => path.slice(path.lastIndexOf('/') + 1));
    const count = (name: string) => programs.filter((program) => program === name).length;
    t.diagnostic(`programs started by inventory of ${AGENTS} Agents: ${programs.join(' ')}`);
    assert.equal(count('systemctl'), 1, 'one systemctl show for every unit');
    assert.equal(count('ss'), running.length, 'one listener check per answering gateway');
    assert.ok(programs.length <= running.length + 3, `${programs.length} programs`);
  });
});
