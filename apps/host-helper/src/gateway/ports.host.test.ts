// Real-host proof of port allocation across Namespaces, of the port index it reads, and of the
// ownership markers that bind an account and a port.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentLayout, markerText, namespaceLayout, revisionLayout, rootLayout } from '@occ-ssh/markers';
import type { AgentOwner } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, accountOf, activateArgs, fails, layoutOf, mainPid, ok, owner, prepareArgs, shell, statOf, unitProperty, unitState } from '@occ-ssh/test-support';

describe('ports and ownership markers on a real host', () => {
  let host: TestHost;
  const ensure = (who: AgentOwner) => ok(host, 'ensure-namespace', { namespace: who.namespace });
  before(async () => {
    host = await startTestHost({ name: 'hports' });
  });
  after(() => host?.down());

  const a1 = owner('pa1', 'ports-a');
  const a2 = { ...owner('pa2', 'ports-a'), namespace: a1.namespace };
  const b1 = owner('pb1', 'ports-b');
  let portB = 0;

  test('ports are the lowest free across Namespaces, distinct under parallel prepares, freed by deletion and reused; the other Namespace is untouched', async () => {
    const c1 = owner('pc1', 'ports-c');
    const c2 = { ...owner('pc2', 'ports-c'), namespace: c1.namespace };
    for (const who of [a1, b1, c1]) await ensure(who);
    const ports = await Promise.all([a1, a2, b1].map(async (who) => (await ok(host, 'prepare-revision', prepareArgs(who, 1))).port));
    assert.deepEqual([...ports].sort(), [18800, 18801, 18802], 'the flock serializes allocation');
    portB = ports[2]!;
    for (const who of [a1, b1]) await ok(host, 'activate-revision', activateArgs(prepareArgs(who, 1)));
    const treeOfB = () => shell(host, `find ${namespaceLayout(ROOT, b1.namespace.id).dir} -printf '%p %u %g %m %s %T@\\n' | sort | sha256sum`);
    const before = { tree: await treeOfB(), pid: await mainPid(host, b1) };

    const revisionMarker = revisionLayout(layoutOf(a2).dir, prepareArgs(a2, 1).revision.id).marker;
    for (const [marker, field, value] of [
      [revisionMarker, 'agentId', a2.agent.id],
      [layoutOf(a2).marker, 'namespaceId', a2.namespace.id],
    ] as const) {
      const original = await host.run(['cat', marker]);
      await host.run(['sed', '-i', `s/"${field}": "${value}"/"${field}": "someone-else"/`, marker]);
      const refused = await fails(host, 'delete-namespace', { namespace: a1.namespace });
      assert.deepEqual([refused.code, refused.path], ['ownership', marker], 'a foreign marker in the set is found before any gateway stops');
      assert.equal(await unitState(host, a1), 'active');
      await host.run(['tee', marker], { input: original });
    }

    assert.equal((await ok(host, 'delete-namespace', { namespace: a1.namespace })).agentsRemoved, 2);
    assert.deepEqual(await unitProperty(host, a1, 'LoadState'), ['not-found'], 'unit files removed and systemd reloaded');
    assert.equal(await treeOfB(), before.tree);
    assert.equal(await mainPid(host, b1), before.pid, "the other Namespace's gateway was not restarted");
    assert.equal(await unitState(host, b1), 'active');
    assert.equal((await host.exec(['getent', 'passwd', accountOf(b1)])).code, 0);
    const freed = [ports[0]!, ports[1]!].sort((x, y) => x - y);
    assert.equal((await ok(host, 'prepare-revision', prepareArgs(c1, 1))).port, freed[0]);
    assert.equal((await ok(host, 'prepare-revision', prepareArgs(c2, 1))).port, freed[1]);
  });

  test('account, Agent and Namespace markers bind the live UID/GID and port to the exact Driver, Namespace, Agent and ServicePrincipal', async () => {
    const name = accountOf(b1);
    const fields = (await host.run(['getent', 'passwd', name])).trim().split(':');
    const [uid, gid] = [Number(fields[2]), Number(fields[3])];
    assert.equal(Number((await host.run(['getent', 'group', name])).trim().split(':')[2]), gid);
    const owned = { driver: 'compute-ssh', namespaceId: b1.namespace.id, agentId: b1.agent.id, servicePrincipalId: b1.servicePrincipal.id };
    assert.deepEqual(JSON.parse(await host.run(['cat', `${ROOT}/accounts/${name}.json`])), { kind: 'account', version: 1, ...owned, account: name, state: 'active', uid, gid });
    assert.deepEqual(JSON.parse(await host.run(['cat', layoutOf(b1).marker])), { kind: 'agent', version: 1, ...owned, account: name, uid, gid, port: portB });
    assert.deepEqual(JSON.parse(await host.run(['cat', namespaceLayout(ROOT, b1.namespace.id).marker])), {
      kind: 'namespace',
      version: 1,
      driver: 'compute-ssh',
      namespaceId: b1.namespace.id,
      namespaceName: 'ports-b',
    });
    const impostor = { ...b1, servicePrincipal: { id: 'sp-impostor' } };
    const error = await fails(host, 'prepare-revision', prepareArgs(impostor, 2));
    assert.equal(error.code, 'ownership');
    assert.equal(error.path, layoutOf(b1).marker);
  });

  test('the port index gives a new Agent its port without reading the other markers; a directory made behind it sends allocation back to the markers', async () => {
    const x1 = owner('px1', 'ports-x');
    const sibling = (tag: string) => ({ ...owner(tag, 'ports-x'), namespace: x1.namespace });
    const [x2, x3, x4, x5] = [sibling('px2'), sibling('px3'), sibling('px4'), sibling('px5')];
    await ensure(x1);
    for (const who of [x1, x2]) await ok(host, 'prepare-revision', prepareArgs(who, 1));
    const index = async () => JSON.parse(await host.run(['cat', rootLayout(ROOT).ports])) as { namespaces: Record<string, { agents: Record<string, number> }> };
    const markerPorts = async () => (await shell(host, `cat ${ROOT}/namespaces/*/agents/*/agent.json | sed -n 's/.*"port": \\([0-9]*\\).*/\\1/p' | sort -n`)).trim().split('\n').map(Number);
    const indexPorts = async () =>
      Object.values((await index()).namespaces)
        .flatMap(({ agents }) => Object.values(agents))
        .sort((a, b) => a - b);
    assert.equal(await statOf(host, rootLayout(ROOT).ports), 'root:root 600 regular file');
    assert.deepEqual(await indexPorts(), await markerPorts(), 'the index records exactly the ports the markers do');
    const lowestFree = (used: number[]) => [...Array(100).keys()].map((i) => 18800 + i).find((port) => !used.includes(port))!;

    // With x1's marker unreadable, only the index can have given the next port: the markers would refuse.
    const original = await host.run(['cat', layoutOf(x1).marker]);
    await host.run(['tee', layoutOf(x1).marker], { input: 'not json' });
    const expected = lowestFree(await indexPorts());
    assert.equal((await ok(host, 'prepare-revision', prepareArgs(x3, 1))).port, expected);
    await host.run(['tee', layoutOf(x1).marker], { input: original });

    // An Agent directory another helper version made, holding the next free port, without an index entry.
    const planted = agentLayout(ROOT, UNIT_DIR, x1.namespace.id, 'agent-planted');
    const held = lowestFree(await indexPorts());
    const marker = { ...JSON.parse(original), agentId: 'agent-planted', servicePrincipalId: 'sp-planted', port: held };
    await host.run(['mkdir', '-m', '0700', planted.dir]);
    await host.run(['tee', planted.marker], { input: markerText(marker) });
    await host.run(['chmod', '0600', planted.marker]);
    const port = (await ok(host, 'prepare-revision', prepareArgs(x4, 1))).port;
    assert.notEqual(port, held, 'the markers were read again');
    assert.deepEqual(await indexPorts(), await markerPorts(), 'and the index written again for the tree as it is');
    assert.equal((await index()).namespaces[planted.dir.split('/').at(-3)!]!.agents[planted.dir.split('/').at(-1)!], held);

    // Deleting an Agent leaves an index that still describes the tree, its port free for the next.
    const freed = (await ok(host, 'delete-agent', { owner: x2 })).portFreed!;
    assert.equal((await indexPorts()).includes(freed), false);
    await host.run(['tee', layoutOf(x1).marker], { input: 'not json' });
    assert.equal(lowestFree(await indexPorts()), freed);
    assert.equal((await ok(host, 'prepare-revision', prepareArgs(x5, 1))).port, freed);
    await host.run(['tee', layoutOf(x1).marker], { input: original });
    assert.deepEqual(await indexPorts(), await markerPorts());
  });
});
