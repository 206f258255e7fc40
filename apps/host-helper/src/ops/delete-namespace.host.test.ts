// Real-host proof of delete-namespace: validate everything first, then remove units, tree and accounts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { accountName, agentLayout, deletingNamespacePath, namespaceLayout } from '@occ-ssh/markers';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { ROOT, UNIT_DIR, activateArgs, exists, fails, ok, owner, prepareArgs } from '@occ-ssh/test-support';

describe('delete-namespace on a real host', () => {
  let host: TestHost;
  const one = owner('del1', 'doomed');
  const two = { ...owner('del2', 'doomed'), namespace: one.namespace };
  const keep = owner('keep', 'kept');
  const layouts = [one, two].map((who) => agentLayout(ROOT, UNIT_DIR, who.namespace.id, who.agent.id));
  const accounts = [one, two].map((who) => accountName('openclaw', who.namespace.id, who.agent.id));
  const isActive = async (unit: string) => (await host.exec(['systemctl', 'is-active', unit])).stdout.trim();

  before(async () => {
    host = await startTestHost({ name: 'hdel' });
    for (const who of [one, keep]) await ok(host, 'ensure-namespace', { namespace: who.namespace });
    for (const who of [one, two, keep]) {
      const args = prepareArgs(who, 1);
      await ok(host, 'prepare-revision', args);
      await ok(host, 'activate-revision', activateArgs(args));
    }
  });
  after(() => host?.down());

  test('a unit without the ownership header in the set stops the deletion before any gateway stops', async () => {
    const unit = layouts[1]!.unitFile;
    const original = await host.run(['cat', unit]);
    await host.run(['sed', '-i', '1d', unit]);
    const error = await fails(host, 'delete-namespace', { namespace: one.namespace });
    assert.equal(error.code, 'ownership');
    assert.equal(error.path, unit);
    assert.equal(await isActive(layouts[0]!.unitName), 'active');
    assert.equal(await isActive(layouts[1]!.unitName), 'active');
    await host.run(['tee', unit], { input: original });
  });

  test('a foreign Namespace marker is refused', async () => {
    const error = await fails(host, 'delete-namespace', { namespace: { id: one.namespace.id, name: 'not-doomed' } });
    assert.equal(error.code, 'ownership');
    assert.equal(await exists(host, namespaceLayout(ROOT, one.namespace.id).dir), true);
  });

  test('deletion stops and removes every unit, the tree and the owned accounts, and nothing else', async () => {
    const result = await ok(host, 'delete-namespace', { namespace: one.namespace });
    assert.deepEqual(result, { treeExisted: true, agentsRemoved: 2, accountsRemoved: [...accounts].sort() });
    for (const layout of layouts) {
      assert.equal(await exists(host, layout.unitFile), false);
      assert.notEqual(await isActive(layout.unitName), 'active');
    }
    assert.equal(await exists(host, namespaceLayout(ROOT, one.namespace.id).dir), false);
    for (const name of accounts) {
      assert.equal((await host.exec(['getent', 'passwd', name])).code, 2);
      assert.equal((await host.exec(['getent', 'group', name])).code, 2);
      assert.equal(await exists(host, `${ROOT}/accounts/${name}.json`), false);
    }
    assert.deepEqual((await host.run(['ls', '-A', `${ROOT}/namespaces`])).trim().split('\n'), [namespaceLayout(ROOT, keep.namespace.id).dir.split('/').pop()]);
    const kept = agentLayout(ROOT, UNIT_DIR, keep.namespace.id, keep.agent.id);
    assert.equal(await isActive(kept.unitName), 'active');
  });

  test('deleting again is idempotent', async () => {
    assert.deepEqual(await ok(host, 'delete-namespace', { namespace: one.namespace }), { treeExisted: false, agentsRemoved: 0, accountsRemoved: [] });
  });

  test('with the tree already gone, deletion still removes remaining owned accounts', async () => {
    const who = owner('orphan', 'doomed');
    await ok(host, 'ensure-namespace', { namespace: who.namespace });
    await ok(host, 'prepare-revision', prepareArgs(who, 1));
    await host.run(['rm', '-rf', namespaceLayout(ROOT, who.namespace.id).dir]);
    const name = accountName('openclaw', who.namespace.id, who.agent.id);
    const result = await ok(host, 'delete-namespace', { namespace: who.namespace });
    assert.deepEqual(result, { treeExisted: false, agentsRemoved: 0, accountsRemoved: [name] });
    assert.equal((await host.exec(['getent', 'passwd', name])).code, 2);
  });

  test('a tree an earlier version left renamed away is staged and removed by root, with its account or without', async () => {
    const cases = [owner('resume-live', 'doomed'), owner('resume-gone', 'doomed')];
    for (const who of cases) {
      await ok(host, 'ensure-namespace', { namespace: who.namespace });
      await ok(host, 'prepare-revision', prepareArgs(who, 1));
      const name = accountName('openclaw', who.namespace.id, who.agent.id);
      const home = agentLayout(ROOT, UNIT_DIR, who.namespace.id, who.agent.id).home;
      // What the Agent made in its home, closed to itself; then the state an interruption after the rename leaves.
      await host.run(['setpriv', `--reuid=${name}`, `--regid=${name}`, '--clear-groups', '--', 'sh', '-c', 'mkdir -p "$1/a/b" && touch "$1/a/b/f" && chmod 000 "$1/a/b" "$1/a"', 'sh', home]);
      await host.run(['mv', namespaceLayout(ROOT, who.namespace.id).dir, deletingNamespacePath(ROOT, who.namespace.id)]);
    }
    await host.run(['userdel', accountName('openclaw', cases[1]!.namespace.id, cases[1]!.agent.id)]);
    for (const who of cases) {
      const name = accountName('openclaw', who.namespace.id, who.agent.id);
      assert.deepEqual(await ok(host, 'delete-namespace', { namespace: who.namespace }), { treeExisted: false, agentsRemoved: 0, accountsRemoved: [name] });
      assert.equal(await exists(host, deletingNamespacePath(ROOT, who.namespace.id)), false);
      assert.equal(await exists(host, `${ROOT}/accounts/${name}.json`), false);
      assert.equal((await host.exec(['getent', 'passwd', name])).code, 2);
    }
  });
});
