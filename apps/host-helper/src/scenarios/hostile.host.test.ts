// Real-host proof that hostile host state and malformed input are refused and change nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { accountName, agentLayout, rootLayout } from '@occ-ssh/markers';
import { sealOperation, sealRaw } from '@occ-ssh/helper-call';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, activateArgs, callRaw, callWire, envelopeFor, fails, ok, owner, prepareArgs, statOf, unvalidatedArgument } from '@occ-ssh/test-support';

describe('hostile host state on a real host', () => {
  let host: TestHost;
  const treeHash = async () => host.run(['sh', '-c', `find ${ROOT} ${UNIT_DIR} -printf '%p %u %g %m %s %l\\n' 2>/dev/null | sort | sha256sum; getent passwd | sha256sum`]);

  before(async () => {
    host = await startTestHost({ name: 'hhost' });
  });
  after(() => host?.down());

  test('malformed arguments are refused as configuration failures with nothing touched', async () => {
    const before = await treeHash();
    const good = envelopeFor(host, 'ensure-namespace', { namespace: owner('m').namespace });
    const sealed = sealOperation(unvalidatedArgument(good));
    const other = sealOperation(unvalidatedArgument({ ...good, requestId: 'another' }));
    const wires = [
      { argument: 'bm90IGJhc2U2NA', prelude: sealed.prelude },
      { argument: Buffer.from('{not json').toString('base64'), prelude: sealed.prelude },
      { argument: other.argument, prelude: sealed.prelude },
      { argument: sealed.argument, prelude: '' },
      { argument: sealed.argument, prelude: sealRaw(42).prelude },
    ];
    const encoded = [
      Buffer.from('{not json').toString('base64'),
      unvalidatedArgument({ ...good, protocolVersion: 99 }),
      unvalidatedArgument({ ...good, operation: 'format-disk' }),
      unvalidatedArgument({ ...good, extra: 1 }),
      unvalidatedArgument({ ...good, args: { namespace: { id: 'ns/../../etc', name: 'stable' } } }),
      unvalidatedArgument({ ...good, args: { namespace: { id: 'ns\nX-OCC', name: 'stable' } } }),
      unvalidatedArgument({ ...good, runtime: { ...good.runtime, root: '/var/lib/x y' } }),
      unvalidatedArgument({ ...good, configurationHash: '0'.repeat(64) }),
    ];
    const outcomes = [...(await Promise.all(wires.map((wire) => callWire(host, wire)))), ...(await Promise.all(encoded.map((text) => callRaw(host, text))))];
    for (const [index, { line, stdout }] of outcomes.entries()) {
      assert.equal(line?.ok, false, `case ${index}: ${stdout.slice(-200)}`);
      assert.equal(line.ok ? '' : line.error.code, 'configuration', `case ${index}`);
    }
    assert.equal(await treeHash(), before);
  });

  test('an existing user with the Agent account name but no marker is refused, not adopted', async () => {
    const who = owner('squat');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const name = accountName('openclaw', who.namespace.id, who.agent.id);
    await host.run(['useradd', '--system', name]);
    const error = await fails(host, 'prepare-revision', prepareArgs(who, 1));
    assert.equal(error.code, 'ownership');
    assert.equal(error.path, `${ROOT}/accounts/${name}.json`);
    assert.equal((await host.exec(['test', '-e', `${ROOT}/accounts/${name}.json`])).code, 1);
  });

  test('an existing group with the Agent account name is refused too', async () => {
    const who = owner('grp');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await host.run(['groupadd', '--system', accountName('openclaw', who.namespace.id, who.agent.id)]);
    assert.equal((await fails(host, 'prepare-revision', prepareArgs(who, 1))).code, 'ownership');
  });

  test('a foreign account marker (another Agent) is refused', async () => {
    const who = owner('foreign');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await ok(host, 'prepare-revision', prepareArgs(who, 1));
    // The account's own marker, rewritten as if another Agent of the Namespace owned the account.
    const path = `${ROOT}/accounts/${accountName('openclaw', who.namespace.id, who.agent.id)}.json`;
    const marker = { ...(JSON.parse(await host.run(['cat', path])) as Record<string, unknown>), agentId: 'agent-other' };
    await host.run(['install', '-m', '600', '/dev/stdin', path], { input: JSON.stringify(marker) });
    const error = await fails(host, 'prepare-revision', prepareArgs(who, 2));
    assert.equal(error.code, 'ownership');
    assert.match(error.message, /different agent/);
  });

  test('a reused UID (the account now has another UID than recorded) is refused', async () => {
    const who = owner('reuse');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await ok(host, 'prepare-revision', prepareArgs(who, 1));
    const name = accountName('openclaw', who.namespace.id, who.agent.id);
    await host.run(['usermod', '-u', '4343', name]);
    const error = await fails(host, 'prepare-revision', prepareArgs(who, 1));
    assert.equal(error.code, 'ownership');
    assert.match(error.message, /recorded UID/);
  });

  test('state/ replaced by a symlink to /etc is refused without touching /etc', async () => {
    const who = owner('link');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await ok(host, 'prepare-revision', prepareArgs(who, 1));
    const layout = agentLayout(ROOT, UNIT_DIR, who.namespace.id, who.agent.id);
    const etc = await statOf(host, '/etc');
    await host.run(['sh', '-c', `rm -rf ${layout.state} && ln -s /etc ${layout.state}`]);
    const error = await fails(host, 'prepare-revision', prepareArgs(who, 2));
    assert.equal(error.code, 'ownership');
    assert.equal(error.path, layout.state);
    assert.equal(await statOf(host, '/etc'), etc);
  });

  test('links an Agent plants inside state/ and home/ are never followed, not even by deletion', async () => {
    const who = owner('plant', 'plant');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    const args = prepareArgs(who, 1);
    await ok(host, 'prepare-revision', args);
    await ok(host, 'activate-revision', activateArgs(args));
    const layout = agentLayout(ROOT, UNIT_DIR, who.namespace.id, who.agent.id);
    const name = accountName('openclaw', who.namespace.id, who.agent.id);
    await host.run(['runuser', '-u', name, '--', 'ln', '-s', '/root', `${layout.state}/root-link`]);
    await host.run(['runuser', '-u', name, '--', 'ln', '-s', '/etc/shadow', `${layout.home}/shadow-link`]);
    const shadow = await statOf(host, '/etc/shadow');
    const root = await statOf(host, '/root');
    await ok(host, 'prepare-revision', prepareArgs(who, 2));
    await ok(host, 'activate-revision', activateArgs(prepareArgs(who, 2)));
    await ok(host, 'delete-namespace', { namespace: who.namespace });
    assert.equal(await statOf(host, '/etc/shadow'), shadow);
    assert.equal(await statOf(host, '/root'), root);
    assert.equal((await host.exec(['test', '-s', '/etc/shadow'])).code, 0);
  });

  test('an edited (unparseable) Agent marker is refused and its port stays taken, by the port index or by refusing', async () => {
    const who = owner('edit');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await ok(host, 'prepare-revision', prepareArgs(who, 1));
    const layout = agentLayout(ROOT, UNIT_DIR, who.namespace.id, who.agent.id);
    const original = await host.run(['cat', layout.marker]);
    await host.run(['sed', '-i', 's/"port": 18/"port": "18/', layout.marker]);
    const error = await fails(host, 'prepare-revision', prepareArgs(who, 1));
    assert.equal(error.code, 'ownership');
    assert.equal(error.path, layout.marker);
    const damagedPort = (JSON.parse(original) as { port: number }).port;
    const other = owner('edit-bystander');
    await ok(host, 'ensure-namespace', { namespace: other.namespace });
    const port = (await ok(host, 'prepare-revision', prepareArgs(other, 1))).port;
    assert.notEqual(port, damagedPort, "the port index still holds the damaged marker's port");
    // Without the index, the markers are read, and allocation fails closed on the damaged one.
    await host.run(['rm', rootLayout(ROOT).ports]);
    const third = owner('edit-bystander-2');
    await ok(host, 'ensure-namespace', { namespace: third.namespace });
    const blocked = await fails(host, 'prepare-revision', prepareArgs(third, 1));
    assert.equal(blocked.path, layout.marker, 'port allocation fails closed on a damaged marker and names it');
    await host.run(['tee', layout.marker], { input: original });
  });

  test('a marker made writable by others is refused', async () => {
    const who = owner('mode');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await ok(host, 'prepare-revision', prepareArgs(who, 1));
    const layout = agentLayout(ROOT, UNIT_DIR, who.namespace.id, who.agent.id);
    await host.run(['chmod', '666', layout.marker]);
    assert.equal((await fails(host, 'prepare-revision', prepareArgs(who, 1))).code, 'ownership');
  });
});
