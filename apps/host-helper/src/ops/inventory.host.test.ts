// Real-host proof that inventory's cost does not grow by processes per Agent: systemd lists every
// unit's state in one `systemctl list-units`, is asked for more in one `systemctl show` only about the
// units not stopped, enabled is read from the links on disk, and only an answering gateway costs a
// listener check (`ss`). Counted from the helper's own execve calls, under strace.
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

  test('one systemctl list-units and one systemctl show for every unit, no is-enabled, and one ss per answering gateway', async (t) => {
    const result = await ok(host, 'inventory', {}, { wrap: ['strace', '-f', '-qq', '-z', '-e', 'trace=execve', '-e', 'signal=none', '-o', TRACE] });
    const agents = result.namespaces.flatMap((ns) => ns.agents);
    assert.equal(agents.length, AGENTS);
    const running = agents.filter((agent) => agent.agentId !== tenants.at(-1)!.agent.id);
    for (const agent of running) assert.deepEqual([agent.unitState, agent.enabled, agent.ready, agent.restarts], ['active', true, true, 0], agent.agentId);
    const stopped = agents.find((agent) => agent.agentId === tenants.at(-1)!.agent.id)!;
    assert.deepEqual([stopped.unitState, stopped.ready, stopped.memoryBytes, stopped.restarts], ['inactive', false, null, null], 'a stopped unit is not asked about');
    const trace = await host.run(['cat', TRACE]);
    const programs = trace
      .split('\n')
      .map((line) => /execve\("([^"]+)"/.exec(line)?.[1])
      .filter((path): path is string => path !== undefined && !path.endsWith('/node'))
      .map((path) => path.slice(path.lastIndexOf('/') + 1));
    const count = (name: string) => programs.filter((program) => program === name).length;
    t.diagnostic(`programs started by inventory of ${AGENTS} Agents: ${programs.join(' ')}`);
    assert.equal(count('systemctl'), 2, 'list-units, then one show for the units not stopped');
    assert.match(trace, /execve\("[^"]*systemctl", \["systemctl", "list-units", "--all", "--output=json"/);
    assert.equal(count('ss'), running.length, 'one listener check per answering gateway');
    assert.ok(programs.length <= running.length + 4, `${programs.length} programs`);
  });
});
