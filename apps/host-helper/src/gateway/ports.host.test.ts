// Real-host proof of port allocation across Namespaces and of the ownership markers that bind an account and a port.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { namespaceLayout, revisionLayout } from '@occ-ssh/markers';
import type { AgentOwner } from '@occ-ssh/protocol';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, accountOf, activateArgs, fails, layoutOf, mainPid, ok, owner, prepareArgs, shell, unitProperty, unitState } from '@occ-ssh/test-support';

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
});
